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

package dev.insync.replication.core.partition;

import dev.insync.replication.log.LogAppendInfo;

/**
 * The outcome of a successful leader append (PRO-2, HW-4).
 *
 * @param info                    what the log appended
 * @param leaderEpoch             the leader epoch stamped into the appended batches (LOG-4), read under the
 *                                same lock as the append, so no leader change can come between them
 * @param highWatermarkIncreased  whether the append raised the HW (the caller wakes the purgatories, PRO-4)
 */
public record LeaderAppendResult(LogAppendInfo info, int leaderEpoch, boolean highWatermarkIncreased) {
}
