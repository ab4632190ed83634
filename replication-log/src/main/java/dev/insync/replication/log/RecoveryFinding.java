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
 * Something opening a log found and repaired (LOG-7), as it was also logged: what, in which file,
 * at which offset, and why. {@link Log#recoveryFindings()} lists them, so an owner (or a
 * simulator checking that a bit flip was caught) need not parse log output.
 *
 * @param kind   what was done
 * @param file   the file concerned (a segment, an index, a checkpoint file)
 * @param offset the offset concerned: where the log was cut, or the segment's base offset
 * @param reason why, naming what was wrong
 */
public record RecoveryFinding(Kind kind, Path file, long offset, String reason) {

    /** What recovery did. */
    public enum Kind {
        /** A torn, corrupt or non-contiguous tail was cut off a segment; later segments were deleted. */
        TRUNCATED_TAIL,
        /** A segment that does not continue the one before it was deleted, with every later one. */
        DELETED_SEGMENT,
        /** A segment below the recovery point failed its check: it was rescanned and its indexes rebuilt. */
        REBUILT_INDEX,
        /** The leader-epoch cache was missing, empty or behind the log and was rebuilt from the batches. */
        REBUILT_EPOCH_CACHE,
        /** The recovery point was above the log end offset: every segment was rescanned. */
        RESCANNED_ALL,
        /** The checkpointed log start offset was above the log end offset and was clamped to it. */
        CLAMPED_LOG_START
    }

    /** Checks the fields are present. */
    public RecoveryFinding {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(reason, "reason");
    }
}
