/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.insync.replication.log;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One disk operation of a log directory, as {@link StorageFaults} sees it just before it runs.
 *
 * @param kind    what the operation does
 * @param file    the file (or, for {@link Kind#DIRECTORY_FSYNC}, the directory) it touches
 * @param durable whether the directory forces to disk ({@link FileSync#isDurable()}): for a
 *                {@link Kind#FLUSH} or {@link Kind#DIRECTORY_FSYNC}, whether it will really wait for
 *                the disk once the hook lets it run
 */
public record StorageOperation(Kind kind, Path file, boolean durable) {

    /** The kinds of operation a fault can be injected into. */
    public enum Kind {
        /**
         * Changing a file's bytes or size, or a directory's entries: appending to a segment, writing
         * an index entry, resizing an index, truncating a segment, creating, renaming or deleting a
         * file, writing a checkpoint's content.
         */
        WRITE,
        /** Forcing a file's bytes to disk: a segment's data, an index mapping, a checkpoint's temp file. */
        FLUSH,
        /** Forcing a directory, so that a created, renamed or deleted file survives a power loss. */
        DIRECTORY_FSYNC
    }

    /** Checks the fields are present. */
    public StorageOperation {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(file, "file");
    }
}
