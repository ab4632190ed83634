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

package dev.insync.replication.cli.scenario;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** How the process scenarios read the brokers' output: {@link BrokerLogTail} and the ISR-line matcher. */
class BrokerLogTailTest {

    @TempDir
    Path dir;

    private static void append(Path file, String text) throws Exception {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    @DisplayName("the tail starts at each file's end, keeps a line cut mid-write until its newline, stamps lines when"
            + " first seen and tells brokers apart")
    void tailsAppendedLinesOnly() throws Exception {
        Path one = dir.resolve("broker-1.log");
        Path two = dir.resolve("broker-2.log");
        append(one, "old line before the tail\n");
        try (BrokerLogTail tail = new BrokerLogTail(Map.of(1, one, 2, two))) {
            int mark = tail.mark();
            long before = System.currentTimeMillis();
            append(one, "INFO Shrinking ISR from 1,2,3 to 1,2. Le");
            append(two, "INFO [ReplicaFetcher] Truncating partition div-0 to offset 10\n");
            tail.readOnce();
            assertThat(tail.since(mark, 1)).isEmpty();
            append(one, "ader: (highWatermark: 12, endOffset: 18).\nsecond\n");
            assertThat(tail.first(mark, 1, t -> t.contains("Shrinking ISR"))).get().satisfies(l -> {
                assertThat(l.text()).isEqualTo("INFO Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 12, endOffset: 18).");
                assertThat(l.seenAtMs()).isGreaterThanOrEqualTo(before);
                assertThat(l.broker()).isEqualTo(1);
            });
            assertThat(tail.since(mark, 1)).extracting(BrokerLogTail.Line::text).hasSize(2).last().isEqualTo("second");
            assertThat(tail.since(mark, 2)).singleElement().satisfies(l -> assertThat(l.text()).endsWith("to offset 10"));
            assertThat(tail.since(tail.mark(), 1)).isEmpty();
        }
    }

    @Test
    @DisplayName("a committed ISR on processes is the leader's AlterPartition line or its metadata line, either"
            + " order of replicas; a pending shrink or another ISR is not")
    void isrCommittedLines() {
        assertThat(ProcessScenarioRun.isrCommitted("INFO [Partition rep-0 broker=1] ISR updated to 1,2  and version updated to 1",
                1, 2)).isTrue();
        assertThat(ProcessScenarioRun.isrCommitted("INFO [Partition rep-0 broker=1] Skipped the become-leader state change for"
                + " rep-0 since it is already the leader with leader epoch 0; ISR 1,2 and replicas 1,2,3 applied with partition"
                + " epoch 1.", 1, 2)).isTrue();
        assertThat(ProcessScenarioRun.isrCommitted("ISR updated to 2,3,1  and version updated to 4", 1, 2, 3)).isTrue();
        assertThat(ProcessScenarioRun.isrCommitted("ISR updated to 1,2  and version updated to 1", 1, 2, 3)).isFalse();
        assertThat(ProcessScenarioRun.isrCommitted("Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 12", 1, 2)).isFalse();
        assertThat(ProcessScenarioRun.isrCommitted("Expanding ISR from 1,2 to 1,2,3", 1, 2, 3)).isFalse();
    }
}
