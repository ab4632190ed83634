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

package dev.insync.replication.cli.dump;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * The stdout that kafka-dump-log.sh prints for a {@code .log} file, rebuilt from what Kafka's own
 * reader (kafka-clients {@code FileRecords}) makes of the file: every field comes from Kafka's
 * classes, so a difference from our dump is a difference in how the bytes are read.
 */
final class KafkaReferenceDump {

    private KafkaReferenceDump() {
    }

    static List<String> expectedLines(Path logFile, long startOffset, boolean deep, boolean printData) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("Dumping " + logFile);
        lines.add("Log starting offset: " + startOffset);
        try (FileRecords records = FileRecords.open(logFile.toFile(), false)) {
            long position = 0;
            for (FileChannelRecordBatch batch : records.batches()) {
                lines.add("baseOffset: " + batch.baseOffset() + " lastOffset: " + batch.lastOffset()
                        + " count: " + batch.countOrNull() + " baseSequence: " + batch.baseSequence()
                        + " lastSequence: " + batch.lastSequence() + " producerId: " + batch.producerId()
                        + " producerEpoch: " + batch.producerEpoch() + " partitionLeaderEpoch: "
                        + batch.partitionLeaderEpoch() + " isTransactional: " + batch.isTransactional()
                        + " isControl: " + batch.isControlBatch() + " deleteHorizonMs: " + batch.deleteHorizonMs()
                        + " position: " + position + " " + batch.timestampType() + ": " + batch.maxTimestamp()
                        + " size: " + batch.sizeInBytes() + " magic: " + batch.magic()
                        + " compresscodec: " + batch.compressionType().name + " crc: " + batch.checksum()
                        + " isvalid: " + batch.isValid());
                if (deep) {
                    for (Record r : batch) {
                        lines.add(recordLine(batch, r, printData));
                    }
                }
                position += batch.sizeInBytes();
            }
            long trailing = records.sizeInBytes() - position;
            if (trailing > 0) {
                lines.add("Found " + trailing + " invalid bytes at the end of " + logFile.getFileName());
            }
        }
        return lines;
    }

    private static String recordLine(FileChannelRecordBatch batch, Record r, boolean printData) {
        StringJoiner keys = new StringJoiner(",", "[", "]");
        for (Header h : r.headers()) {
            keys.add(h.key());
        }
        StringBuilder line = new StringBuilder("| offset: " + r.offset() + " " + batch.timestampType() + ": "
                + r.timestamp() + " keySize: " + r.keySize() + " valueSize: " + r.valueSize()
                + " sequence: " + r.sequence() + " headerKeys: " + keys);
        if (batch.isControlBatch()) {
            ControlRecordType type = ControlRecordType.parse(r.key());
            if (type == ControlRecordType.ABORT || type == ControlRecordType.COMMIT) {
                EndTransactionMarker marker = EndTransactionMarker.deserialize(r);
                line.append(" endTxnMarker: ").append(marker.controlType())
                        .append(" coordinatorEpoch: ").append(marker.coordinatorEpoch());
            }
        } else if (printData) {
            if (r.hasKey()) {
                line.append(" key: ").append(text(r.key()));
            }
            if (r.hasValue()) {
                line.append(" payload: ").append(text(r.value()));
            }
        }
        return line.toString();
    }

    private static String text(ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
