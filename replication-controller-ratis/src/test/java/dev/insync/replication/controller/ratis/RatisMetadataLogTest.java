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

package dev.insync.replication.controller.ratis;

import dev.insync.replication.controller.log.LeaderAndEpoch;
import dev.insync.replication.controller.log.MetadataBatch;
import dev.insync.replication.controller.log.MetadataLog;
import dev.insync.replication.controller.log.MetadataSnapshot;
import dev.insync.replication.controller.log.NotLeaderException;
import dev.insync.replication.controller.log.UnexpectedBaseOffsetException;
import dev.insync.replication.controller.record.MetadataRecord;
import dev.insync.replication.controller.record.RegisterBrokerRecord;
import dev.insync.replication.core.time.ThreadScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@link MetadataLog} contract, on a one-voter Ratis quorum driven directly (no controller on top). */
class RatisMetadataLogTest {

    @TempDir
    Path dir;

    private ThreadScheduler scheduler;
    private RatisMetadataLog log;
    private final List<String> events = new CopyOnWriteArrayList<>();
    private Executor listenerExecutor;

    /** Records what the log delivers, in order. */
    private final class Recorder implements MetadataLog.Listener {
        @Override
        public void handleSnapshot(MetadataSnapshot snapshot) {
            events.add("snapshot@" + snapshot.lastOffset());
        }

        @Override
        public void handleCommit(MetadataBatch batch) {
            events.add("batch@" + batch.baseOffset() + ".." + batch.lastOffset());
        }

        @Override
        public void handleLeaderChange(LeaderAndEpoch leader) {
            events.add("leader " + (leader.leaderId().isPresent() ? leader.leaderId().getAsInt() : "none") + "/" + leader.epoch());
        }
    }

    private RatisControllerConfig config(long snapshotRecords) {
        Map<String, Object> p = new HashMap<>();
        p.put("node.id", 1);
        p.put("process.roles", "controller");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + RatisQuorum.freePort());
        p.put("metadata.log.dir", dir.resolve("node-1").toString());
        p.put("controller.quorum.election.timeout.ms", 300);
        p.put("metadata.log.max.snapshot.interval.records", snapshotRecords);
        return RatisControllerConfig.fromProperties(p);
    }

    @BeforeEach
    void setUp() throws Exception {
        scheduler = new ThreadScheduler();
        listenerExecutor = scheduler.newSerialExecutor("listener");
        log = new RatisMetadataLog(config(3), scheduler);
        log.register(new Recorder(), listenerExecutor);
        log.start();
        RatisQuorum.awaitCondition(10_000, () -> log.leaderAndEpoch().isLeader(1), "node 1 leads");
    }

    @AfterEach
    void tearDown() {
        log.close();
        scheduler.close();
    }

    /** One registration record at {@code offset} (a broker's epoch is its registration's offset). */
    private static List<MetadataRecord> registration(long offset) {
        return List.of(new RegisterBrokerRecord((int) (offset % 1000), offset, -1, false, true, false, false));
    }

    private long append(long offset) throws Exception {
        return log.append(log.leaderAndEpoch().epoch(), offset, registration(offset)).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }

    private static Throwable failure(java.util.concurrent.CompletionStage<?> stage) throws Exception {
        try {
            stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    @DisplayName("CTL-1 a batch at the required base offset commits whole; a wrong base offset or epoch commits nothing")
    void ctl1AppendIsAllOrNothingAtRequiredBaseOffset() throws Exception {
        assertThat(append(0)).isEqualTo(0);
        int epoch = log.leaderAndEpoch().epoch();
        List<MetadataRecord> two = List.of(registration(1).get(0), registration(2).get(0));
        assertThat(log.append(epoch, 1, two).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(failure(log.append(epoch, 7, registration(7)))).isInstanceOf(UnexpectedBaseOffsetException.class)
                .hasMessageContaining("7").hasMessageContaining("3");
        assertThat(failure(log.append(epoch, 1, registration(1)))).isInstanceOf(UnexpectedBaseOffsetException.class);
        assertThat(failure(log.append(epoch + 1, 3, registration(3)))).isInstanceOf(NotLeaderException.class);
        assertThat(log.committedOffset()).isEqualTo(2);
        // Pipelined appends commit in order; the log holds exactly what committed.
        var a = log.append(epoch, 3, registration(3));
        var b = log.append(epoch, 4, registration(4));
        assertThat(b.toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(4);
        assertThat(a.toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(3);
        List<MetadataBatch> batches = log.read(log.latestSnapshot().map(MetadataSnapshot::lastOffset).orElse(-1L), 100);
        assertThat(batches.get(batches.size() - 1).lastOffset()).isEqualTo(4);
    }

    @Test
    @DisplayName("CTL-1 registering delivers the latest snapshot, the batches after it, then the leadership; read maps offsets over Raft entries that hold none")
    void ctl1RegisterDeliversSnapshotBatchesThenLeader() throws Exception {
        // The leadership reaches the listener on its own executor, after the log itself knows it (setUp's wait).
        RatisQuorum.awaitCondition(10_000, () -> !events.isEmpty() && events.get(events.size() - 1).startsWith("leader 1/"),
                "the listener told that node 1 leads");
        assertThat(events).last().asString().startsWith("leader 1/");
        for (long o = 0; o < 5; o++) {
            append(o);
        }
        // The bound of 3 records brought a snapshot (at offset 2, 3 or 4) and purged the Raft log up to it.
        RatisQuorum.awaitCondition(10_000, () -> log.latestSnapshot().isPresent(), "a snapshot");
        long snapshotOffset = log.latestSnapshot().orElseThrow().lastOffset();
        assertThat(snapshotOffset).isBetween(2L, 4L);
        assertThat(log.latestSnapshotIndex()).isPositive();
        log.unregister();
        events.clear();
        log.register(new Recorder(), listenerExecutor);
        List<String> expected = new ArrayList<>();
        expected.add("snapshot@" + snapshotOffset);
        for (long o = snapshotOffset + 1; o < 5; o++) {
            expected.add("batch@" + o + ".." + o);
        }
        expected.add("leader 1/" + log.leaderAndEpoch().epoch());
        RatisQuorum.awaitCondition(5_000, () -> events.size() >= expected.size(), "the deliveries " + expected);
        assertThat(events).containsExactlyElementsOf(expected);

        assertThat(log.read(snapshotOffset, 10)).extracting(MetadataBatch::baseOffset)
                .containsExactlyElementsOf(java.util.stream.LongStream.range(snapshotOffset + 1, 5).boxed().toList());
        assertThat(log.read(4, 10)).isEmpty();
        assertThatThrownBy(() -> log.read(snapshotOffset - 1, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only in the snapshot");
    }

    @Test
    @DisplayName("CTL-1 a node restarted from its metadata.log.dir has the same log: snapshot plus the batches after it")
    void ctl1RestartFromDirectory() throws Exception {
        for (long o = 0; o < 3; o++) {
            append(o);
        }
        // The third record reaches the bound of 3: a snapshot at offset 2; two more stay below the next one.
        RatisQuorum.awaitCondition(10_000, () -> log.latestSnapshot().isPresent(), "a snapshot");
        append(3);
        append(4);
        MetadataSnapshot snapshot = log.latestSnapshot().orElseThrow();
        List<MetadataBatch> tail = log.read(snapshot.lastOffset(), 100);
        RatisControllerConfig config = log.config();
        log.close();
        events.clear();
        log = new RatisMetadataLog(config, scheduler);
        log.register(new Recorder(), listenerExecutor);
        log.start();
        RatisQuorum.awaitCondition(10_000, () -> log.committedOffset() == 4 && log.leaderAndEpoch().isLeader(1),
                "the restarted node back at offset 4, leading");
        assertThat(snapshot.lastOffset()).isEqualTo(2);
        assertThat(log.latestSnapshot()).contains(snapshot);
        assertThat(log.read(snapshot.lastOffset(), 100)).isEqualTo(tail);
        assertThat(events).containsSubsequence("snapshot@" + snapshot.lastOffset(), "batch@3..3", "batch@4..4", "leader 1/"
                + log.leaderAndEpoch().epoch());
    }
}
