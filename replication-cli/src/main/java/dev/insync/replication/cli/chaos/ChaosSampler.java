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

package dev.insync.replication.cli.chaos;

import dev.insync.replication.core.partition.ReplicaDescription;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.history.HistoryEvent.Sample;
import dev.insync.replication.testkit.process.JvmProcess;
import dev.insync.replication.testkit.process.ProcessCluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code sample} lines of a chaos run: every broker's replicas of the topic as the broker holds
 * them (DescribeReplicas), so that {@link dev.insync.replication.testkit.history.InvariantChecker}
 * judges INV-4, INV-7, INV-8 and LOG-10 on real processes as it does on the simulator's samples.
 *
 * <p>A process cannot be read at one instant with the others, so one sampling instant asks every
 * running broker twice, the second round after the first has been answered. A leader's state comes
 * from the first round and a follower's from the second, and a leader's sample is written only if
 * every other member of its ISR answered the second round (or is down): each member's LEO was then
 * read after the leader's HW, and an LEO only grows within an incarnation unless it truncates,
 * which below a HW is what INV-7 catches. A leader whose ISR holds a paused or unreachable broker
 * keeps its previous sample until the ISR shrinks. A paused broker gets no sample (its frozen state
 * is its latest one), a killed one a {@code down} sample, and a running one that holds no replica
 * of a partition (not yet serving after a restart, say) an {@code absent} one. Each broker's
 * incarnation is the number of times its process was seen replaced (a new PID). As in a
 * simulation, a sample is written only when it differs from the broker's previous one.
 */
final class ChaosSampler {

    /** Bound on one round's answers: a broker paused meanwhile answers late, and is then left out. */
    private static final long ROUND_TIMEOUT_MS = 1_000;

    private final ProcessCluster cluster;
    private final ChaosRecorder recorder;
    private final String topic;
    private final int partitions;
    private final Map<Integer, Long> pids = new HashMap<>();
    private final Map<Integer, Integer> incarnations = new HashMap<>();
    private final Map<Long, Sample> last = new HashMap<>();

    ChaosSampler(ProcessCluster cluster, ChaosRecorder recorder, String topic, int partitions) {
        this.cluster = cluster;
        this.recorder = recorder;
        this.topic = topic;
        this.partitions = partitions;
    }

    /** One sampling instant: asks every running broker twice, then writes what changed, all at one time. */
    void sampleOnce(InsyncClient client) throws InterruptedException {
        Map<Integer, Status> status = new HashMap<>();
        for (int b : cluster.brokerIds()) {
            status.put(b, status(b));
        }
        Map<Integer, Map<Integer, ReplicaDescription>> first = round(client, status);
        Map<Integer, Map<Integer, ReplicaDescription>> second = round(client, status);
        recorder.addAll(t -> {
            // Down, absent and follower samples first: a leader's sample needs each member's from the second round.
            Map<Long, Sample> later = new LinkedHashMap<>();
            for (int b : cluster.brokerIds()) {
                for (int p = 0; p < partitions; p++) {
                    Sample s = laterSample(t, b, p, status, second);
                    if (s != null) {
                        later.put(key(p, b), s);
                    }
                }
            }
            Map<Long, Sample> current = new LinkedHashMap<>(later);
            for (int b : cluster.brokerIds()) {
                for (int p = 0; p < partitions; p++) {
                    Sample s = leaderSample(t, b, p, first, second, later);
                    if (s != null) {
                        current.put(key(p, b), s);
                    }
                }
            }
            List<HistoryEvent> changed = new ArrayList<>();
            current.forEach((k, s) -> {
                if (!s.sameState(last.get(k))) {
                    last.put(k, s);
                    changed.add(s);
                }
            });
            return changed;
        });
    }

    /** The latest sample written of {@code broker}'s replica of {@code partition} (what the history's reader holds), or null. */
    Sample latest(int partition, int broker) {
        return last.get(key(partition, broker));
    }

    private enum Status { RUNNING, PAUSED, DOWN }

    private Status status(int broker) {
        if (!cluster.isRunning(broker)) {
            return Status.DOWN;
        }
        JvmProcess process = cluster.process(broker);
        Long previous = pids.put(broker, process.pid());
        if (previous != null && previous != process.pid()) {
            incarnations.merge(broker, 1, Integer::sum);
        }
        return process.isStopped() ? Status.PAUSED : Status.RUNNING;
    }

    /**
     * Every running broker's replicas of the topic, by broker then partition; a broker that did not
     * answer in time is left out.
     */
    private Map<Integer, Map<Integer, ReplicaDescription>> round(InsyncClient client, Map<Integer, Status> status)
            throws InterruptedException {
        Map<Integer, CompletableFuture<List<ReplicaDescription>>> asked = new HashMap<>();
        status.forEach((b, s) -> {
            if (s == Status.RUNNING) {
                asked.put(b, client.describeReplicas(b));
            }
        });
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ROUND_TIMEOUT_MS);
        Map<Integer, Map<Integer, ReplicaDescription>> answers = new HashMap<>();
        for (Map.Entry<Integer, CompletableFuture<List<ReplicaDescription>>> e : asked.entrySet()) {
            try {
                long leftNs = Math.max(0, deadline - System.nanoTime());
                List<ReplicaDescription> replicas = e.getValue().get(leftNs, TimeUnit.NANOSECONDS);
                Map<Integer, ReplicaDescription> byPartition = new HashMap<>();
                for (ReplicaDescription d : replicas) {
                    if (d.topicPartition().topic().equals(topic)) {
                        byPartition.put(d.topicPartition().partition(), d);
                    }
                }
                answers.put(e.getKey(), byPartition);
            } catch (ExecutionException | TimeoutException unanswered) {
                // Paused, cut off or restarting: this round has nothing of it.
            }
        }
        return answers;
    }

    /** A broker's sample from the second round when it is not a leader's: down, absent or a follower's; else null. */
    private Sample laterSample(long t, int broker, int partition, Map<Integer, Status> status,
                               Map<Integer, Map<Integer, ReplicaDescription>> second) {
        int incarnation = incarnations.getOrDefault(broker, 0);
        if (status.get(broker) == Status.DOWN) {
            return Sample.absence(t, broker, partition, incarnation, HistoryEvent.DOWN);
        }
        Map<Integer, ReplicaDescription> answer = second.get(broker);
        if (answer == null) {
            return null; // paused, or no answer in the second round
        }
        ReplicaDescription now = answer.get(partition);
        if (now == null) {
            return Sample.absence(t, broker, partition, incarnation, HistoryEvent.ABSENT);
        }
        return now.leader() ? null : sample(t, broker, incarnation, now);
    }

    /**
     * A leader's sample from the first round, if it still led in that epoch in the second and every
     * other member of its ISR has a sample from the second round at this instant ({@code later}); else null.
     */
    private Sample leaderSample(long t, int broker, int partition, Map<Integer, Map<Integer, ReplicaDescription>> first,
                                Map<Integer, Map<Integer, ReplicaDescription>> second, Map<Long, Sample> later) {
        ReplicaDescription now = Optional.ofNullable(second.get(broker)).map(m -> m.get(partition)).orElse(null);
        ReplicaDescription earlier = Optional.ofNullable(first.get(broker)).map(m -> m.get(partition)).orElse(null);
        if (now == null || !now.leader() || earlier == null || !earlier.leader()
                || earlier.leaderEpoch() != now.leaderEpoch()) {
            return null; // not a leader, or it became one between the rounds: its members were not read after it
        }
        for (int member : earlier.isr()) {
            if (member != broker && !later.containsKey(key(partition, member))) {
                return null; // paused, unreachable, or itself a leader now: its LEO was not read after this HW
            }
        }
        return sample(t, broker, incarnations.getOrDefault(broker, 0), earlier);
    }

    private static Sample sample(long t, int broker, int incarnation, ReplicaDescription d) {
        return new Sample(t, broker, d.topicPartition().partition(), incarnation, HistoryEvent.RUNNING, d.leader(),
                d.leaderEpoch(), d.isr(), d.highWatermark(), d.logEndOffset(), d.logStartOffset(),
                HistoryEvent.EpochStart.of(d.epochs()));
    }

    private static long key(int partition, int broker) {
        return ((long) partition << 32) | (broker & 0xFFFFFFFFL);
    }
}
