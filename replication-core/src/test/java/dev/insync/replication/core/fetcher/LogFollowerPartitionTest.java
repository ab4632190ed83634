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

package dev.insync.replication.core.fetcher;

import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogConfig;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fetcher over real logs in a temp directory. */
class LogFollowerPartitionTest extends FetcherTestSupport {

    @TempDir
    Path tmp;

    private Log log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private static MemoryRecords leaderBatch(long baseOffset, int epoch, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(1_000L + i, null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(baseOffset, epoch, records);
    }

    private Log openLog() {
        log = Log.open(tmp.resolve("div-0"), DIV0, LogConfig.defaults(), 0L, 0L);
        return log;
    }

    @Test
    @DisplayName("FOL-4 FOL-5 FOL-8 over a real Log: the leader's bytes are appended, epochs learned, divergence truncated")
    void realLogAppendAndTruncate() {
        Log log = openLog();
        FetcherManager manager = manager(3, 1);
        LogFollowerPartition partition = new LogFollowerPartition(log);
        manager.addFetcherForPartitions(Map.of(DIV0, new InitialFetchState(partition, 1, 2,
                FetcherManager.initialFetchOffset(partition))));
        scheduler.runReady();
        assertThat(transport.last().request().partitions().get(DIV0).lastFetchedEpoch()).isEmpty();

        MemoryRecords fromLeader = MemoryRecords.concat(List.of(leaderBatch(0, 0, "a", "b", "c"),
                leaderBatch(3, 2, "d", "e")));
        transport.last().future().complete(response(DIV0, data(4, 0, 5, fromLeader)));
        scheduler.runReady();
        assertThat(log.logEndOffset()).isEqualTo(5);
        assertThat(log.highWatermark()).isEqualTo(4);
        assertThat(log.leaderEpochCache().epochEntries())
                .containsExactly(new EpochEntry(0, 0), new EpochEntry(2, 3));
        FetchRequest.PartitionData next = transport.last().request().partitions().get(DIV0);
        assertThat(next.fetchOffset()).isEqualTo(5);
        assertThat(next.lastFetchedEpoch()).hasValue(2);

        // The leader's epoch 0 ended at 3 and it never had epoch 2: cut everything from offset 3.
        transport.last().future().complete(new FetchResponse(Errors.NONE, Map.of(DIV0,
                new FetchResponse.PartitionData(Errors.NONE, 3, 3, 0, 6, MemoryRecords.EMPTY,
                        Optional.of(new EpochEndOffset(0, 3))))));
        scheduler.runReady();
        assertThat(log.logEndOffset()).isEqualTo(3);
        assertThat(log.highWatermark()).isEqualTo(3);
        assertThat(log.leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(0, 0));
        assertThat(transport.last().request().partitions().get(DIV0).lastFetchedEpoch()).isEqualTo(OptionalInt.of(0));
    }

    @Test
    @DisplayName("FOL-8 the follower lookup over a real Log answers like Kafka's: below the first epoch, its start")
    void realLogEndOffsetForEpoch() {
        Log log = openLog();
        log.appendAsFollower(leaderBatch(0, 2, "a", "b"));
        log.appendAsFollower(leaderBatch(2, 4, "c"));
        // Below every known epoch: (requested, start of the first epoch), so a diverged follower truncates there.
        assertThat(new LogFollowerPartition(log).endOffsetForEpoch(1)).contains(new EpochEndOffset(1, 0));
        assertThat(new LogFollowerPartition(log).endOffsetForEpoch(2)).contains(new EpochEndOffset(2, 2));
        assertThat(new LogFollowerPartition(log).endOffsetForEpoch(3)).contains(new EpochEndOffset(2, 2));
        assertThat(new LogFollowerPartition(log).endOffsetForEpoch(4)).contains(new EpochEndOffset(4, 3));
        // Above the latest epoch the cache answers UNDEFINED (LOG-8), as Kafka's follower sees it.
        assertThat(new LogFollowerPartition(log).endOffsetForEpoch(9)).isEmpty();
    }

    @Test
    @DisplayName("FOL-5 LOG-10 FOL-6 over a real Log: the HW is reported once per change, the log start follows the leader's, and a leader log start above our LEO restarts the log there")
    void realLogHighWatermarkLogStartAndRestart() {
        Log log = openLog();
        FetcherManager manager = manager(3, 1);
        LogFollowerPartition partition = new LogFollowerPartition(log);
        manager.addFetcherForPartitions(Map.of(DIV0, new InitialFetchState(partition, 1, 2,
                FetcherManager.initialFetchOffset(partition))));
        scheduler.runReady();

        transport.last().future().complete(response(DIV0, data(5, 0, 5, leaderBatch(0, 2, "a", "b", "c", "d", "e"))));
        scheduler.runReady();
        assertThat(log.highWatermark()).isEqualTo(5);
        assertThat(hwChanges).containsExactly(Set.of(DIV0));

        // The leader deleted records up to 3: the follower's log start follows, and is sent back.
        transport.last().future().complete(response(DIV0, data(5, 3, 5, MemoryRecords.EMPTY)));
        scheduler.runReady();
        assertThat(log.logStartOffset()).isEqualTo(3);
        assertThat(hwChanges).as("the HW did not move: not reported again").hasSize(1);
        assertThat(transport.last().request().partitions().get(DIV0).logStartOffset()).isEqualTo(3);

        transport.last().future().complete(response(DIV0, new FetchResponse.PartitionData(Errors.OFFSET_OUT_OF_RANGE,
                -1, -1, 100, 120, MemoryRecords.EMPTY, Optional.empty())));
        scheduler.runReady();
        assertThat(log.logStartOffset()).isEqualTo(100);
        assertThat(log.logEndOffset()).isEqualTo(100);
        assertThat(log.highWatermark()).isEqualTo(100);
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isEqualTo(100);
    }

    @Test
    @DisplayName("FOL-7 a real log's partition without a leader gets no fetcher; the refusal names it")
    void realLogNoLeaderNamed() {
        Log log = openLog();
        assertThatThrownBy(() -> new InitialFetchState(new LogFollowerPartition(log), -1, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("div-0");
    }
}
