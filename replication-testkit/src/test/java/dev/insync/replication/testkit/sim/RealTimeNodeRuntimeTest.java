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

package dev.insync.replication.testkit.sim;

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.network.ServiceKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class RealTimeNodeRuntimeTest {

    private static final NodeId B1 = NodeId.broker(1);
    private final RealTimeNodeRuntime runtime = new RealTimeNodeRuntime(1);

    @AfterEach
    void close() {
        runtime.close();
    }

    @Test
    @DisplayName("real time: a serial executor is a named thread running tasks in submission order")
    void namedSerialThread() throws Exception {
        Executor executor = runtime.forNode(B1).newSerialExecutor("ReplicaFetcherThread-0-2");
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(100);
        for (int i = 0; i < 100; i++) {
            int n = i;
            executor.execute(() -> {
                seen.add(n + "@" + Thread.currentThread().getName());
                done.countDown();
            });
        }
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).hasSize(100).first().isEqualTo("0@broker-1/ReplicaFetcherThread-0-2");
        assertThat(seen).extracting(s -> Integer.parseInt(s.substring(0, s.indexOf('@')))).isSorted();
    }

    @Test
    @DisplayName("real time: pause closes the gate in front of a node's executors; resume opens it")
    void pauseGate() throws Exception {
        Scheduler scheduler = runtime.forNode(B1);
        Executor executor = scheduler.newSerialExecutor("x");
        runtime.pause(B1);
        CountDownLatch ran = new CountDownLatch(2);
        executor.execute(ran::countDown);
        scheduler.schedule(executor, ran::countDown, 1);
        assertThat(ran.await(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(ran.getCount()).isEqualTo(2);
        runtime.resume(B1);
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    @DisplayName("real time: kill drops held tasks and stale executors; the new incarnation runs")
    void kill() throws Exception {
        Executor old = runtime.forNode(B1).newSerialExecutor("x");
        runtime.pause(B1);
        CountDownLatch stale = new CountDownLatch(1);
        old.execute(stale::countDown);
        runtime.kill(B1);
        runtime.start(B1);
        old.execute(stale::countDown);
        CountDownLatch fresh = new CountDownLatch(1);
        runtime.forNode(B1).newSerialExecutor("x").execute(fresh::countDown);
        assertThat(fresh.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(stale.await(200, TimeUnit.MILLISECONDS)).isFalse();
    }

    /**
     * A task writing to a file when the node is stopped: it keeps writing for 200 ms after {@code stopping}
     * is set, which an interrupt would cut short by closing the channel ({@code ClosedByInterruptException}).
     */
    private static Runnable fileWriter(Path file, AtomicBoolean stopping, CountDownLatch started,
                                       AtomicReference<Throwable> failure, CountDownLatch finished) {
        return () -> {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                started.countDown();
                long stopAt = Long.MAX_VALUE;
                while (System.nanoTime() < stopAt) {
                    channel.write(ByteBuffer.wrap(new byte[] {1}));
                    if (stopping.get() && stopAt == Long.MAX_VALUE) {
                        stopAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                    }
                }
                if (Thread.currentThread().isInterrupted()) {
                    failure.set(new AssertionError("the task's thread was interrupted"));
                }
            } catch (Throwable t) {
                failure.set(t);
            } finally {
                finished.countDown();
            }
        };
    }

    @Test
    @DisplayName("§9 real time: kill and close never interrupt a task in the middle of file I/O; they wait for it")
    void stopNeverInterruptsFileIo(@TempDir Path dir) throws Exception {
        for (boolean viaClose : new boolean[] {false, true}) {
            RealTimeNodeRuntime rt = new RealTimeNodeRuntime(2);
            AtomicBoolean stopping = new AtomicBoolean();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finished = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            rt.forNode(B1).newSerialExecutor("writer").execute(
                    fileWriter(dir.resolve("segment-" + viaClose), stopping, started, failure, finished));
            assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

            stopping.set(true);
            if (viaClose) {
                rt.close();
            } else {
                rt.kill(B1);
            }

            assertThat(finished.getCount()).as("%s waited for the running task", viaClose ? "close" : "kill").isZero();
            assertThat(failure.get()).as("the write loop ran to its end").isNull();
            rt.close();
        }
    }

    @Test
    @DisplayName("real time: the in-memory network runs unchanged on threads")
    void networkOnThreads() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork(runtime);
        ServiceKey<String, String> echo = ServiceKey.of("echo", String.class, String.class);
        network.bind(NodeId.broker(2), echo, s -> CompletableFuture.completedFuture(s + "@" + Thread.currentThread().getName()));
        String answer = network.send(B1, NodeId.broker(2), echo, "hi").get(5, TimeUnit.SECONDS);
        assertThat(answer).isEqualTo("hi@broker-2/network");
    }
}
