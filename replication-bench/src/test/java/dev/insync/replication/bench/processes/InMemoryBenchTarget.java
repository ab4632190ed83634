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

package dev.insync.replication.bench.processes;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A target in this JVM with known behaviour, to check the workload's arithmetic: every record is
 * acknowledged {@link #ACK_DELAY_MS} after it is sent, on the target's own thread, with at most
 * {@link #MAX_PENDING} records pending (then {@code send} blocks). After {@link #kill}, records sent
 * from then on are acknowledged no earlier than {@link #OUTAGE_MS} after the kill, while records
 * sent before it still arrive after their usual delay, that is after the kill too. The servers'
 * CPU is {@link #CPU_SECONDS_PER_RECORD} per acknowledged record.
 */
final class InMemoryBenchTarget implements ProcessBenchTarget {

    static final long ACK_DELAY_MS = 2;
    static final long OUTAGE_MS = 400;
    static final int MAX_PENDING = 10_000;
    static final double CPU_SECONDS_PER_RECORD = 1e-6;

    private final String name;
    private final ScheduledExecutorService acks;
    private final Semaphore pending = new Semaphore(MAX_PENDING);
    private final AtomicLong acked = new AtomicLong();
    private final AtomicInteger leader = new AtomicInteger(1);
    private final Map<String, Integer> topics = new ConcurrentHashMap<>();
    private volatile long killedAtNs;
    private volatile boolean killed;
    private volatile boolean closed;

    InMemoryBenchTarget(String name) {
        this.name = name;
        this.acks = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-acks");
            t.setDaemon(true);
            return t;
        });
    }

    /** A factory starting a new one per repeat, counting the starts. */
    static ProcessBenchTargetFactory factory(String name, List<InMemoryBenchTarget> started) {
        return new ProcessBenchTargetFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public ProcessBenchTarget start(java.nio.file.Path workDir, ProcessBenchSettings settings,
                                            java.util.function.Consumer<String> progress) {
                InMemoryBenchTarget t = new InMemoryBenchTarget(name);
                started.add(t);
                return t;
            }
        };
    }

    boolean closed() {
        return closed;
    }

    Map<String, Integer> topics() {
        return topics;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return "in-memory target " + name;
    }

    @Override
    public String bootstrapServers() {
        return "in-memory";
    }

    @Override
    public List<Integer> brokerIds() {
        return List.of(1, 2, 3);
    }

    @Override
    public void createTopic(String topic, int partitions, int replicationFactor, int minInsyncReplicas, Duration timeout) {
        if (topics.putIfAbsent(topic, partitions) != null) {
            throw new IllegalStateException("Topic " + topic + " exists");
        }
    }

    @Override
    public int leaderOf(String topic, int partition) {
        return leader.get();
    }

    @Override
    public boolean awaitFullIsr(String topic, Duration timeout) {
        return topics.containsKey(topic);
    }

    @Override
    public void kill(int brokerId) {
        if (brokerId != leader.get()) {
            throw new IllegalArgumentException("broker " + brokerId + " is not the leader " + leader.get());
        }
        killedAtNs = System.nanoTime();
        killed = true;
        leader.set(brokerId % 3 + 1);
    }

    @Override
    public double serverCpuSeconds() {
        return acked.get() * CPU_SECONDS_PER_RECORD;
    }

    @Override
    public BenchClient client(BenchClientSettings settings) {
        return new BenchClient() {
            @Override
            public void send(String topic, int partition, byte[] value, Completion completion) {
                Integer partitions = topics.get(topic);
                if (partitions == null || partition >= partitions) {
                    throw new IllegalArgumentException("No partition " + topic + "-" + partition);
                }
                try {
                    pending.acquire();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
                long delayMs = ACK_DELAY_MS;
                if (killed) {
                    long sinceKillMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAtNs);
                    delayMs = Math.max(delayMs, OUTAGE_MS - sinceKillMs);
                }
                acks.schedule(() -> {
                    acked.incrementAndGet();
                    pending.release();
                    completion.completed(null);
                }, delayMs, TimeUnit.MILLISECONDS);
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public void close() {
        closed = true;
        acks.shutdownNow();
    }
}
