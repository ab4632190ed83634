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

package dev.insync.replication.core.partition;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.DelayedProduce;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.purgatory.DelayedOperationPurgatory;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.core.time.Time;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static dev.insync.replication.core.partition.PartitionFixture.TP;
import static dev.insync.replication.core.partition.PartitionFixture.registration;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real threads against one leader partition: two producers doing acks=all through a production-mode produce
 * purgatory (timing wheel on a {@link ThreadScheduler}), two follower threads fetching (with random stalls, so the
 * ISR shrinks and expands), the ISR-expiration task on its own thread and a model controller answering
 * AlterPartition on another. No acks=all may complete with NONE before the HW passes its offset and while an ISR
 * member lacks its records; every one completes within its timeout.
 */
class PartitionConcurrencyStressTest {

    private static final int PRODUCERS = 2;
    private static final int APPENDS_PER_PRODUCER = 250;
    private static final long LAG_MS = 40L;
    private static final long PRODUCE_TIMEOUT_MS = 3_000L;

    /** The controller: validates leader and partition epoch (ISR-6 subset) and commits, on its own thread. */
    private static final class ModelController implements AlterPartitionSender {
        final ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "model-controller"));
        int partitionEpoch = 0;
        List<Integer> isr = List.of(1, 2, 3);
        final AtomicInteger commits = new AtomicInteger();

        @Override
        public CompletableFuture<AlterPartitionResponse.PartitionResult> submit(AlterPartitionRequest.Item item) {
            return CompletableFuture.supplyAsync(() -> answer(item), thread);
        }

        private synchronized AlterPartitionResponse.PartitionResult answer(AlterPartitionRequest.Item item) {
            if (item.leaderEpoch() != 0) {
                return AlterPartitionResponse.PartitionResult.failed(Errors.FENCED_LEADER_EPOCH);
            }
            if (item.partitionEpoch() != partitionEpoch) {
                return AlterPartitionResponse.PartitionResult.failed(Errors.INVALID_UPDATE_VERSION);
            }
            isr = item.newIsrIds();
            partitionEpoch++;
            commits.incrementAndGet();
            return new AlterPartitionResponse.PartitionResult(Errors.NONE, 1, 0, isr, partitionEpoch);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @DisplayName("PRO-3 PRO-5 ISR-1 ISR-2 HW-1 under real threads: no acks=all completes early, every one completes")
    void stress() throws Exception {
        ModelController controller = new ModelController();
        ThreadScheduler scheduler = new ThreadScheduler(Time.SYSTEM, "stress", 1, 5_000L);
        DelayedOperationPurgatory<DelayedProduce> purgatory = DelayedOperationPurgatory.create("Produce", scheduler,
                scheduler.newSerialExecutor("ExpirationReaper-1-Produce"));
        PartitionListener listener = new PartitionListener() {
            @Override
            public void onHighWatermarkIncreased(TopicPartition tp) {
                purgatory.checkAndComplete(tp);
            }
        };
        ReplicaEligibility eligibility = new ReplicaEligibility() {
            @Override
            public boolean isBrokerEligible(int brokerId, long brokerEpochFromFetch) {
                return brokerEpochFromFetch == 100L + brokerId;
            }

            @Override
            public OptionalLong registeredBrokerEpoch(int brokerId) {
                return OptionalLong.of(100L + brokerId);
            }
        };
        InMemoryLocalLog log = new InMemoryLocalLog(TP);
        Partition partition = new Partition(log, 2, new PartitionSettings(1, () -> 101L, Time.SYSTEM, LAG_MS,
                eligibility, controller, listener));
        partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1, 2, 3)));

        Map<Integer, AtomicLong> trueLeo = Map.of(2, new AtomicLong(), 3, new AtomicLong());
        List<String> violations = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Map<TopicPartition, ProduceResult>>> futures = new CopyOnWriteArrayList<>();
        Map<Errors, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();

        for (int p = 0; p < PRODUCERS; p++) {
            threads.add(new Thread(() -> {
                for (int i = 0; i < APPENDS_PER_PRODUCER; i++) {
                    LogAppendInfo info;
                    try {
                        info = partition.appendAsLeader(InMemoryLocalLog.records(1 + i % 3), Acks.ALL).info();
                    } catch (ApiException e) {
                        outcomes.computeIfAbsent(e.error(), k -> new AtomicInteger()).incrementAndGet();
                        continue;
                    }
                    long required = info.lastOffset() + 1;
                    DelayedProduce op = new DelayedProduce(PRODUCE_TIMEOUT_MS, Map.of(TP, new DelayedProduce.PartitionWait(
                            required, new ProduceResult(Errors.NONE, info.firstOffset(), -1L, 0))),
                            tp -> Optional.of(partition));
                    futures.add(op.result().whenComplete((r, t) -> {
                        Errors error = r.get(TP).error();
                        outcomes.computeIfAbsent(error, k -> new AtomicInteger()).incrementAndGet();
                        if (error == Errors.NONE) {
                            long hw = partition.highWatermark();
                            if (hw < required) {
                                violations.add("acks=all for " + required + " completed at HW " + hw);
                            }
                            for (int id : partition.isrState().maximalIsr()) {
                                if (id != 1 && trueLeo.get(id).get() < required) {
                                    violations.add("acks=all for " + required + " completed while ISR member " + id
                                            + " holds " + trueLeo.get(id).get());
                                }
                            }
                        }
                    }));
                    purgatory.tryCompleteElseWatch(op, op.keys());
                    if (ThreadLocalRandom.current().nextInt(20) == 0) {
                        Thread.yield();
                    }
                }
            }, "producer-" + p));
        }
        for (int follower : List.of(2, 3)) {
            threads.add(new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get()) {
                    long offset = trueLeo.get(follower).get();
                    FetchRequest.PartitionData data = new FetchRequest.PartitionData(offset, 0L, 64, OptionalInt.of(0),
                            OptionalInt.empty());
                    FetchRequest request = new FetchRequest(follower, 100L + follower, 500, 1, 64, Map.of(TP, data));
                    PartitionFetchResult result = partition.fetch(request, data, 64, Time.SYSTEM.milliseconds(), true);
                    if (result.data().error() != Errors.NONE) {
                        violations.add("follower " + follower + " fetch failed: " + result.data().error());
                        return;
                    }
                    trueLeo.get(follower).addAndGet(result.data().records().sizeInBytes());
                    if (result.highWatermarkIncreased()) {
                        purgatory.checkAndComplete(TP);
                    }
                    // a stall now and then models a slow follower, so the ISR shrinks and expands (load, not sync)
                    if (random.nextInt(400) == 0) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(LAG_MS * 2));
                    } else if (random.nextInt(4) == 0) {
                        LockSupport.parkNanos(50_000);
                    }
                }
            }, "follower-" + follower));
        }
        threads.add(new Thread(() -> {
            while (!stop.get()) {
                partition.maybeShrinkIsr();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(LAG_MS / 2));
            }
        }, "isr-expiration"));

        threads.forEach(Thread::start);
        for (Thread t : threads.subList(0, PRODUCERS)) {
            t.join(30_000L);
            assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
        }
        // PRO-5: every acks=all completes, within its timeout (plus a margin for a loaded machine)
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                .get(PRODUCE_TIMEOUT_MS + 20_000L, TimeUnit.MILLISECONDS);
        stop.set(true);
        for (Thread t : threads) {
            t.join(10_000L);
            assertThat(t.isAlive()).as("%s stopped", t.getName()).isFalse();
        }
        purgatory.shutdown();
        scheduler.close();
        controller.thread.shutdownNow();

        assertThat(violations).isEmpty();
        assertThat(futures).allSatisfy(f -> assertThat(f).isDone());
        assertThat(outcomes.keySet()).isSubsetOf(Set.of(Errors.NONE, Errors.REQUEST_TIMED_OUT,
                Errors.NOT_ENOUGH_REPLICAS, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND));
        assertThat(outcomes.get(Errors.NONE)).as("most acks=all succeed").isNotNull();
        assertThat(partition.highWatermark()).isLessThanOrEqualTo(partition.logEndOffset());
    }
}
