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

package dev.insync.replication.core.alter;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.AlterPartitionResponse.PartitionResult;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.core.time.Time;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class AlterPartitionManagerThreadsTest {

    /** Answers every request on its own thread, recording how many were in flight at once. */
    private static final class AsyncChannel implements ControllerChannel {
        final ExecutorService responder = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "test-controller");
            t.setDaemon(true);
            return t;
        });
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();
        final List<Integer> batchSizes = new CopyOnWriteArrayList<>();

        @Override
        public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            batchSizes.add(request.items().size());
            return CompletableFuture.supplyAsync(() -> {
                Map<TopicPartition, PartitionResult> m = new HashMap<>();
                request.items().forEach(i -> m.put(i.topicPartition(),
                        new PartitionResult(Errors.NONE, request.brokerId(), i.leaderEpoch(), i.newIsrIds(), i.partitionEpoch() + 1)));
                inFlight.decrementAndGet();
                return new AlterPartitionResponse(Errors.NONE, m);
            }, responder);
        }

        @Override
        public CompletionStage<Long> registerBroker(int brokerId, long previousBrokerEpoch,
                                                  java.util.List<dev.insync.replication.core.metadata.Endpoint> endpoints) {
            throw new UnsupportedOperationException("not used by this test");
        }

        @Override
        public CompletionStage<HeartbeatResponse> heartbeat(dev.insync.replication.core.metadata.HeartbeatRequest request) {
            throw new UnsupportedOperationException("not used by this test");
        }
    }

    @Test
    @DisplayName("ISR-5 with real threads: concurrent submits, one request in flight, every future answered")
    void concurrentSubmitsOnRealThreads() throws Exception {
        AsyncChannel channel = new AsyncChannel();
        try (ThreadScheduler scheduler = new ThreadScheduler(Time.SYSTEM, "apm-test", 1, 2_000)) {
            AlterPartitionManager manager = new AlterPartitionManager(1, () -> 3, channel,
                    scheduler.newSerialExecutor("AlterPartitionSender-1"), scheduler, 10);
            int threads = 4;
            int perThread = 100;
            List<CompletableFuture<PartitionResult>> futures = new CopyOnWriteArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            CountDownLatch submitted = new CountDownLatch(threads);
            ExecutorService submitters = Executors.newFixedThreadPool(threads);
            try {
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    submitters.execute(() -> {
                        try {
                            go.await(5, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        for (int i = 0; i < perThread; i++) {
                            TopicPartition tp = new TopicPartition("t" + thread, i);
                            futures.add(manager.submit(new AlterPartitionRequest.Item(tp, 0, 0,
                                    List.of(new AlterPartitionRequest.BrokerState(1, 3)), false)));
                        }
                        submitted.countDown();
                    });
                }
                go.countDown();
                assertThat(submitted.await(10, TimeUnit.SECONDS)).isTrue();
                CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            } finally {
                submitters.shutdownNow();
                channel.responder.shutdownNow();
            }
            assertThat(futures).hasSize(threads * perThread)
                    .allSatisfy(f -> assertThat(f.join().error()).isEqualTo(Errors.NONE));
            assertThat(channel.maxInFlight.get()).isEqualTo(1);
            assertThat(channel.batchSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(threads * perThread);
            assertThat(manager.outstandingCount()).isZero();
            manager.close();
        }
    }
}
