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

import dev.insync.replication.log.record.MemoryRecords;

/**
 * The result of {@link Log#read}: whole batches only (LOG-3), plus the log's offsets as they
 * were at the read.
 *
 * @param records             whole batches starting with the one containing the fetch offset
 * @param fetchOffset         the requested offset
 * @param logStartOffset      the log start offset at the time of the read
 * @param logEndOffset        the LEO at the time of the read
 * @param highWatermark       the HW at the time of the read
 */
public record LogReadInfo(MemoryRecords records, long fetchOffset, long logStartOffset, long logEndOffset,
                          long highWatermark) {
}
