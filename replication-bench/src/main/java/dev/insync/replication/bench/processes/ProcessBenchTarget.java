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

import dev.insync.replication.testkit.process.JvmProcess;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A running cluster of server processes on this machine, as the {@link ProcessWorkload} sees it:
 * topics, leaders, a way to kill a broker, the CPU its processes use, and a client. Started by its
 * {@link ProcessBenchTargetFactory}; {@link #close()} stops every process it started (by PID) and
 * removes its data, also after a failure.
 */
public interface ProcessBenchTarget extends AutoCloseable {

    /** The target's name, as in metric names ({@code kafka}, {@code insync}). */
    String name();

    /** What runs, for the report: version, processes, JVM options, settings that differ from the defaults. */
    String description();

    /** The brokers' client addresses, {@code host:port,...}. */
    String bootstrapServers();

    /** The broker ids (not the controllers'). */
    List<Integer> brokerIds();

    /**
     * The process id of each live broker, by broker id (for per-process readings: CPU, live heap).
     *
     * @throws UnsupportedOperationException for a target whose brokers are not processes of their own
     */
    default Map<Integer, Long> brokerPids() {
        throw new UnsupportedOperationException(name() + " does not run its brokers as processes of their own");
    }

    /** {@link #brokerPids()} of a target that keeps its brokers' processes by id. */
    static Map<Integer, Long> livePids(Map<Integer, JvmProcess> brokers) {
        Map<Integer, Long> pids = new TreeMap<>();
        brokers.forEach((id, process) -> {
            if (process.isAlive()) {
                pids.put(id, process.pid());
            }
        });
        return pids;
    }

    /**
     * Creates a topic and returns once every partition has a leader and a full ISR, at most
     * {@code timeout}.
     */
    void createTopic(String topic, int partitions, int replicationFactor, int minInsyncReplicas, Duration timeout)
            throws Exception;

    /** The broker id leading {@code topic}'s {@code partition} now, as the cluster's metadata says. */
    int leaderOf(String topic, int partition) throws Exception;

    /** Waits at most {@code timeout} until every partition of {@code topic} has all its replicas in sync; whether they do. */
    boolean awaitFullIsr(String topic, Duration timeout) throws Exception;

    /** {@code kill -9} of the broker's process; returns once the process is gone. */
    void kill(int brokerId);

    /**
     * CPU seconds (user plus system) used so far by every server process alive now, controllers
     * included; the difference of two readings is what the cluster spent in between.
     */
    double serverCpuSeconds();

    /** A new client of this cluster. */
    BenchClient client(BenchClientSettings settings) throws Exception;

    /** Stops every process (kill -9 by PID, then reaped) and removes the data directories. */
    @Override
    void close();
}
