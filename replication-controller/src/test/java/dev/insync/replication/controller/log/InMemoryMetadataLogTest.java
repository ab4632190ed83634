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

package dev.insync.replication.controller.log;

import dev.insync.replication.controller.ManualScheduler;
import dev.insync.replication.controller.record.FenceBrokerRecord;
import dev.insync.replication.controller.record.MetadataRecord;
import dev.insync.replication.controller.record.RegisterBrokerRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InMemoryMetadataLogTest {

    private final ManualScheduler scheduler = new ManualScheduler(0);
    private final InMemoryMetadataLog log = new InMemoryMetadataLog();

    /** Records what a node's listener is told, in order. */
    private static final class Recorder implements MetadataLog.Listener {
        final List<String> events = new ArrayList<>();

        @Override
        public void handleSnapshot(MetadataSnapshot snapshot) {
            events.add("snapshot@" + snapshot.lastOffset());
        }

        @Override
        public void handleCommit(MetadataBatch batch) {
            events.add("commit@" + batch.baseOffset() + ".." + batch.lastOffset());
        }

        @Override
        public void handleLeaderChange(LeaderAndEpoch leader) {
            events.add("leader " + leader.leaderId() + " epoch " + leader.epoch());
        }
    }

    private static List<MetadataRecord> records(long base, int n) {
        List<MetadataRecord> records = new ArrayList<>();
        records.add(RegisterBrokerRecord.newIncarnation(1, base, -1, false));
        for (int i = 1; i < n; i++) {
            records.add(new FenceBrokerRecord(1, base));
        }
        return records;
    }

    @Test
    @DisplayName("CTL-4 only the leader appends, in its epoch, at the log's next offset; commits reach every node in order")
    void appendRules() {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        log.forNode(0).register(a, scheduler.newSerialExecutor("a"));
        log.forNode(1).register(b, scheduler.newSerialExecutor("b"));
        log.elect(0);
        CompletableFuture<Long> notLeader = log.forNode(1).append(1, 0, records(0, 1)).toCompletableFuture();
        CompletableFuture<Long> oldEpoch = log.forNode(0).append(0, 0, records(0, 1)).toCompletableFuture();
        CompletableFuture<Long> wrongOffset = log.forNode(0).append(1, 5, records(5, 1)).toCompletableFuture();
        CompletableFuture<Long> ok = log.forNode(0).append(1, 0, records(0, 2)).toCompletableFuture();
        scheduler.runReady();
        assertThatThrownBy(notLeader::join).hasCauseInstanceOf(NotLeaderException.class);
        assertThatThrownBy(oldEpoch::join).hasCauseInstanceOf(NotLeaderException.class);
        assertThatThrownBy(wrongOffset::join).hasCauseInstanceOf(UnexpectedBaseOffsetException.class);
        assertThat(ok.join()).isEqualTo(1);
        assertThat(a.events).containsExactly("leader OptionalInt.empty epoch 0", "leader OptionalInt[0] epoch 1", "commit@0..1");
        assertThat(b.events).isEqualTo(a.events);
    }

    @Test
    @DisplayName("CTL-4 held batches are dropped when leadership moves: their appends fail, nothing of them is committed")
    void uncommittedDroppedOnFailover() {
        log.elect(0);
        log.holdCommits(true);
        CompletableFuture<Long> pending = log.forNode(0).append(1, 0, records(0, 1)).toCompletableFuture();
        assertThat(log.uncommittedBatches()).isEqualTo(1);
        log.elect(1);
        assertThatThrownBy(pending::join).isInstanceOf(CompletionException.class).hasCauseInstanceOf(NotLeaderException.class);
        assertThat(log.committedOffset()).isEqualTo(-1);
        CompletableFuture<Long> next = log.forNode(1).append(2, 0, records(0, 1)).toCompletableFuture();
        log.holdCommits(false);
        assertThat(next.join()).isEqualTo(0);
        assertThat(log.leaderAndEpoch()).isEqualTo(new LeaderAndEpoch(OptionalInt.of(1), 2));
    }

    @Test
    @DisplayName("a node registering later gets the snapshot, the batches after it, then the leader; read refuses what only the snapshot has")
    void durableAcrossRestart() {
        log.elect(0);
        log.forNode(0).append(1, 0, records(0, 2));
        log.forNode(0).append(1, 2, records(2, 1));
        log.forNode(0).append(1, 3, records(3, 3));
        log.forNode(0).storeSnapshot(new MetadataSnapshot(2, List.of()));
        assertThat(log.committedBatches()).extracting(MetadataBatch::baseOffset).containsExactly(3L);
        Recorder late = new Recorder();
        log.forNode(2).register(late, scheduler.newSerialExecutor("late"));
        scheduler.runReady();
        assertThat(late.events).containsExactly("snapshot@2", "commit@3..5", "leader OptionalInt[0] epoch 1");
        assertThat(log.forNode(2).read(2, 10)).extracting(MetadataBatch::baseOffset).containsExactly(3L);
        assertThat(log.forNode(2).read(5, 10)).isEmpty();
        assertThatThrownBy(() -> log.forNode(2).read(1, 10)).hasMessageContaining("only in the snapshot");
        assertThatThrownBy(() -> log.forNode(2).read(4, 10)).hasMessageContaining("not the end of a committed metadata batch");
        assertThatThrownBy(() -> log.forNode(0).storeSnapshot(new MetadataSnapshot(4, List.of())))
                .hasMessageContaining("not at the end of a committed batch");
    }

    @Test
    @DisplayName("an unregistered node gets nothing more, not even what was queued for it")
    void unregister() {
        Recorder a = new Recorder();
        log.forNode(0).register(a, scheduler.newSerialExecutor("a"));
        log.elect(0);
        log.forNode(0).unregister();
        scheduler.runReady();
        assertThat(a.events).isEmpty();
    }
}
