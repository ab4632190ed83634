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

/**
 * What an append did.
 *
 * @param firstOffset      offset of the first appended record
 * @param lastOffset       offset of the last appended record
 * @param recordCount      number of records appended
 * @param validBytes       bytes appended
 * @param logAppendTimeMs  the log-append time if the topic uses it, else -1
 * @param maxTimestamp     largest record timestamp appended
 * @param flushDue         LOG-11 group commit: the append made a flush due ({@code flush.messages} /
 *                         {@code flush.ms}) that the log did not do itself because its owner defers
 *                         leader flushes ({@link Log#setLeaderFlushDeferred}); the owner must call
 *                         {@link Log#flush(long)} with at least {@code lastOffset + 1}
 */
public record LogAppendInfo(long firstOffset, long lastOffset, int recordCount, int validBytes,
                            long logAppendTimeMs, long maxTimestamp, boolean flushDue) {

    /** An append that left no flush to its owner (it flushed itself or none was due). */
    public LogAppendInfo(long firstOffset, long lastOffset, int recordCount, int validBytes, long logAppendTimeMs,
                         long maxTimestamp) {
        this(firstOffset, lastOffset, recordCount, validBytes, logAppendTimeMs, maxTimestamp, false);
    }
}
