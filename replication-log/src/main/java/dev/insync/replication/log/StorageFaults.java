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

import java.io.IOException;

/**
 * A fault-injection hook of one log directory: every write, flush and directory fsync of the
 * directory's files (segments, indexes, leader-epoch and directory checkpoints, the clean-shutdown
 * marker) is announced here just before it runs, and throwing fails it exactly as the disk failing
 * would. A failure then takes the whole log directory offline (contract §9): every log in it answers
 * {@link Errors#KAFKA_STORAGE_ERROR} from then on, nothing half-written is served, and the next
 * open recovers the files (LOG-7).
 *
 * <p>Installed per directory through {@link FileSync#withFaults(StorageFaults)}; there is no
 * global hook. The default, {@link #NONE}, lets everything through. Reads are not announced.
 *
 * <p>Called on the thread doing the I/O, sometimes under a log's lock: an implementation must be
 * fast, must not block and must not call back into the log. It may be called from several threads
 * at once (appends, reads' index repairs, flushes, checkpoints).
 */
@FunctionalInterface
public interface StorageFaults {

    /** Lets every operation through. */
    StorageFaults NONE = operation -> { };

    /**
     * Called just before {@code operation} runs.
     *
     * @throws IOException to make the operation fail as a disk error would
     */
    void beforeOperation(StorageOperation operation) throws IOException;
}
