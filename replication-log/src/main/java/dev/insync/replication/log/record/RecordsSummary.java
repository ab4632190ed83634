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

package dev.insync.replication.log.record;

/**
 * What {@link RecordsValidator#validate} learned about input that passed validation (LOG-5), so an
 * append need not walk the batches again.
 *
 * @param batchCount           number of batches
 * @param firstOffset          base offset of the first batch as carried in the input, -1 if none
 * @param lastOffset           last offset of the last batch as carried in the input, -1 if none
 * @param recordCount          total records over all batches
 * @param maxTimestamp         largest record timestamp (batch maxTimestamp for LOG_APPEND_TIME
 *                             batches), {@link RecordBatch#NO_TIMESTAMP} if none
 * @param offsetOfMaxTimestamp offset (as carried) of the first record holding {@code maxTimestamp}, -1 if none
 * @param sizeInBytes          total bytes of all batches
 * @param offsetsMonotonic     whether every batch's base offset is above the previous batch's last
 *                             offset (what a follower append requires, LOG-4)
 */
public record RecordsSummary(int batchCount, long firstOffset, long lastOffset, int recordCount, long maxTimestamp,
                             long offsetOfMaxTimestamp, int sizeInBytes, boolean offsetsMonotonic) {
}
