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

package dev.insync.replication.log.segment;

import java.io.IOException;
import java.nio.file.Path;

/**
 * LOG-7: a lookup found an offset-index entry that does not point at the start of the batch ending
 * at its offset. Nothing was read from the wrong place; the owner rebuilds the segment's indexes
 * ({@link LogSegment#rebuildIndexes}) and retries. Not a disk error: it must not take the log offline.
 */
public final class CorruptIndexException extends IOException {

    private final Path file;

    /**
     * @param file   the index file
     * @param reason what is wrong, naming the entry
     */
    public CorruptIndexException(Path file, String reason) {
        super("Corrupt index " + file + ": " + reason);
        this.file = file;
    }

    /** The index file. */
    public Path file() {
        return file;
    }
}
