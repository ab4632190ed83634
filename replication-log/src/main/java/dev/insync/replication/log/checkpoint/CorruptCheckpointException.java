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

package dev.insync.replication.log.checkpoint;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;

import java.nio.file.Path;

/**
 * A checkpoint file (or the clean-shutdown marker) that cannot be trusted: bad version, wrong entry
 * count or an unparsable line (LOG-9). It is a {@link Errors#KAFKA_STORAGE_ERROR}: the log directory
 * holding the file goes offline rather than silently starting from nothing.
 */
public final class CorruptCheckpointException extends ApiException {

    private final Path file;
    private final int lineNumber;

    /**
     * @param file       the corrupt file
     * @param lineNumber the 1-based line at fault
     * @param reason     what is wrong with it
     */
    public CorruptCheckpointException(Path file, int lineNumber, String reason, Throwable cause) {
        super(Errors.KAFKA_STORAGE_ERROR,
                "Corrupt checkpoint file " + file + " at line " + lineNumber + ": " + reason, cause);
        this.file = file;
        this.lineNumber = lineNumber;
    }

    /** The corrupt file. */
    public Path file() {
        return file;
    }

    /** The 1-based line at fault. */
    public int lineNumber() {
        return lineNumber;
    }
}
