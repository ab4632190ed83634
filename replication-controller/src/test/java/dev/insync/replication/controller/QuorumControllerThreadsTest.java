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

package dev.insync.replication.controller;

import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.log.InMemoryMetadataLog;
import dev.insync.replication.controller.state.ControllerState;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest.BrokerState;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The same driver on real threads: requests from many threads, one serial executor, bounded waits. */
class QuorumControllerThreadsTest {

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("CTL-1 on threads: concurrent registrations and AlterPartitions all commit once, and a restart replays the same state")
    void threads() throws Exception {
        InMemoryMetadataLog log = new InMemoryMetadataLog();
        try (ThreadScheduler scheduler = new ThreadScheduler()) {
            QuorumController c = new QuorumController(0, log.forNode(0), scheduler, ControllerConfig.DEFAULT);
            c.start();
            log.elect(0);
            List<CompletableFuture<Long>> epochs = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int id = 0; id < 8; id++) {
                int broker = id;
                CompletableFuture<Long> epoch = new CompletableFuture<>();
                epochs.add(epoch);
                Thread t = new Thread(() -> c.registerBroker(new RegisterBrokerRequest(broker, -1))
                        .whenComplete((r, e) -> {
                            if (e != null) {
                                epoch.completeExceptionally(e);
                            } else {
                                epoch.complete(r.brokerEpoch());
                            }
                        }), "client-" + id);
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join(10_000);
            }
            List<Long> got = new ArrayList<>();
            for (int id = 0; id < 8; id++) {
                long epoch = epochs.get(id).get(10, TimeUnit.SECONDS);
                got.add(epoch);
                assertThat(await(c.brokerHeartbeat(new HeartbeatRequest(id, epoch, epoch, false))).fenced()).isFalse();
            }
            assertThat(got).doesNotHaveDuplicates();
            await(c.createTopic(CreateTopicRequest.withPlacement("t", 8, 3, Map.of())));
            List<CompletableFuture<?>> alters = new ArrayList<>();
            for (int p = 0; p < 8; p++) {
                TopicPartition tp = new TopicPartition("t", p);
                PartitionRegistration reg = await(c.readCommitted(v -> v.partition(tp)));
                int leader = reg.leader();
                alters.add(c.alterPartition(new AlterPartitionRequest(leader, got.get(leader), List.of(
                        new AlterPartitionRequest.Item(tp, reg.leaderEpoch(), reg.partitionEpoch(),
                                List.of(new BrokerState(leader, got.get(leader))), false)))).toCompletableFuture());
            }
            CompletableFuture.allOf(alters.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            String dump = await(c.readCommitted(v -> ((ControllerState) v).canonicalDump()));
            for (int p = 0; p < 8; p++) {
                TopicPartition tp = new TopicPartition("t", p);
                assertThat(await(c.readCommitted(v -> v.partition(tp))).isr()).hasSize(1);
            }
            c.close();
            QuorumController restarted = new QuorumController(0, log.forNode(0), scheduler, ControllerConfig.DEFAULT);
            restarted.start();
            String replayed = await(restarted.readCommitted(v -> ((ControllerState) v).canonicalDump()));
            assertThat(replayed).isEqualTo(dump);
            restarted.close();
        }
    }
}
