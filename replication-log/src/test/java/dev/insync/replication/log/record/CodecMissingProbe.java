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

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.TopicPartition;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Run by {@link CompressionCodecMissingTest} inside a class loader that sees replication-log's
 * classes but no codec library: reads, validates and builds a snappy batch there and reports what
 * happened as text (only JDK types cross the loader boundary).
 */
public final class CodecMissingProbe implements Function<ByteBuffer, List<String>> {

    @Override
    public List<String> apply(ByteBuffer snappyBatch) {
        List<String> seen = new ArrayList<>();
        seen.add("available " + CompressionType.SNAPPY.isAvailable() + " " + CompressionType.GZIP.isAvailable());
        MemoryRecords records = MemoryRecords.readableRecords(snappyBatch.duplicate());
        RecordBatch batch = records.batches().get(0);
        seen.add("type " + batch.compressionType() + " valid " + batch.isValid());
        try {
            seen.add("records " + batch.records().size());
        } catch (ApiException e) {
            seen.add("records " + e.error() + ": " + e.getMessage());
        }
        TopicPartition tp = new TopicPartition("nocodec", 0);
        try {
            seen.add("validate " + RecordsValidator.validate(records, Integer.MAX_VALUE, tp).recordCount());
        } catch (ApiException e) {
            seen.add("validate " + e.error() + ": " + e.getMessage());
        }
        seen.add("shallow " + RecordsValidator.validateShallow(records, tp).recordCount());
        try {
            new RecordBatchBuilder(0).compression(CompressionType.SNAPPY);
            seen.add("builder ok");
        } catch (IllegalStateException e) {
            seen.add("builder " + e.getMessage());
        }
        RecordBatchBuilder gzip = new RecordBatchBuilder(0).compression(CompressionType.GZIP).append(1, null, new byte[] {7});
        seen.add("gzip " + gzip.build().batches().get(0).records().size());
        return seen;
    }
}
