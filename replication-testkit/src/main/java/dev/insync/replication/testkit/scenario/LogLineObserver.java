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

package dev.insync.replication.testkit.scenario;

import dev.insync.replication.core.fetcher.FetcherManager;
import dev.insync.replication.core.fetcher.Truncation;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.IsrState;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.replica.ReplicaState;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.testkit.cluster.BrokerStatus;
import dev.insync.replication.testkit.cluster.ClusterAdmin;
import dev.insync.replication.testkit.cluster.InMemoryCluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * Rebuilds the brokers' log lines about one partition from their state, sampled between every two
 * simulated events (the loop runs one event at a time, so a state change seen by one sample was made
 * by exactly the previous event, with the values it logged). It reports the lines the seed quotes, in
 * the brokers' own words:
 * <ul>
 *   <li>the leader's {@code Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 12, endOffset: 18).
 *       Out of sync replicas: (brokerId: 3, endOffset: 12, lastCaughtUpTimeMs: ...).} (ISR-1), when its ISR
 *       state turns into a pending shrink;</li>
 *   <li>the leader's {@code ISR updated to 1,2  and version updated to 1} (ISR-5), when a pending change
 *       is committed with a new partition epoch;</li>
 *   <li>a follower's {@code Truncating partition div-0 to offset 10 due to leader epoch and offset
 *       EpochEndOffset(...)} (FOL-8), when its LEO goes down, with the leader's end offset for the
 *       follower's last epoch, which is what the leader's divergingEpoch carried.</li>
 * </ul>
 * No logging backend is needed, so the scenarios print the same lines under any slf4j binding.
 */
public final class LogLineObserver {

    /**
     * One rebuilt log line.
     *
     * @param timeMs    virtual wall-clock time of the event that produced it
     * @param brokerId  the broker that logs it
     * @param kind      what happened
     * @param text      the line, as Kafka's log4j layout prints it without the timestamp
     */
    public record LogLine(long timeMs, int brokerId, Kind kind, String text) {
    }

    /** What a line reports. */
    public enum Kind { SHRINK, ISR_UPDATED, TRUNCATION }

    /** What was last seen of one broker's replica of the partition. */
    private record Seen(Partition partition, IsrState isrState, int partitionEpoch, long logEndOffset,
                        OptionalInt latestEpoch) {
    }

    private final InMemoryCluster cluster;
    private final ClusterAdmin admin;
    private final TopicPartition tp;
    private final int numFetchers;
    private final Map<Integer, Seen> seen = new HashMap<>();
    private final List<LogLine> lines = new ArrayList<>();
    private final Map<Integer, ReplicaState> outOfSyncAtLastShrink = new HashMap<>();

    /** Watches {@code tp} on every broker of {@code cluster}. */
    public LogLineObserver(InMemoryCluster cluster, TopicPartition tp) {
        this.cluster = cluster;
        this.admin = cluster.admin();
        this.tp = tp;
        this.numFetchers = cluster.config().numReplicaFetchers();
    }

    /** Every line rebuilt so far, oldest first. */
    public List<LogLine> lines() {
        return List.copyOf(lines);
    }

    /** Lines of {@code brokerId} from index {@code from} of {@link #lines()} on. */
    public List<LogLine> linesSince(int from, int brokerId) {
        return lines.subList(Math.min(from, lines.size()), lines.size()).stream()
                .filter(l -> l.brokerId() == brokerId).toList();
    }

    /** The leader's view of each replica it found out of sync at the last shrink. */
    public Map<Integer, ReplicaState> outOfSyncAtLastShrink() {
        return Map.copyOf(outOfSyncAtLastShrink);
    }

    /** Compares every broker's state with the last sample and records the lines the change logged. */
    public void sample() {
        for (int brokerId : cluster.brokerIds()) {
            if (cluster.broker(brokerId).status() != BrokerStatus.RUNNING) {
                if (cluster.broker(brokerId).status() == BrokerStatus.DOWN) {
                    seen.remove(brokerId);
                }
                continue;
            }
            Optional<Partition> current = admin.partitionState(brokerId, tp.topic(), tp.partition());
            if (current.isEmpty()) {
                seen.remove(brokerId);
                continue;
            }
            Partition p = current.get();
            Seen now = new Seen(p, p.isrState(), p.partitionEpoch(), p.logEndOffset(), p.localLog().latestEpoch());
            Seen before = seen.put(brokerId, now);
            if (before != null && before.partition() == p) {
                compare(brokerId, before, now);
            }
        }
    }

    private void compare(int brokerId, Seen before, Seen now) {
        Partition p = now.partition();
        long timeMs = cluster.loop().time().milliseconds();
        if (p.isLeader() && now.isrState() != before.isrState()) {
            if (now.isrState() instanceof IsrState.PendingShrinkIsr shrink && !before.isrState().isInflight()) {
                lines.add(new LogLine(timeMs, brokerId, Kind.SHRINK, partitionPrefix(brokerId) + shrinkLine(p, shrink)));
            } else if (before.isrState().isInflight() && !now.isrState().isInflight()
                    && now.partitionEpoch() > before.partitionEpoch()) {
                String text = "ISR updated to " + IsrState.format(now.isrState().isr()) + " "
                        + (p.isUnderMinIsr() ? "(under-min-isr)" : "") + " and version updated to " + now.partitionEpoch();
                lines.add(new LogLine(timeMs, brokerId, Kind.ISR_UPDATED, partitionPrefix(brokerId) + text));
            }
        }
        if (!p.isLeader() && now.logEndOffset() < before.logEndOffset()) {
            lines.add(new LogLine(timeMs, brokerId, Kind.TRUNCATION, truncationLine(brokerId, p, before, now)));
        }
    }

    private String partitionPrefix(int brokerId) {
        return "INFO [Partition " + tp + " broker=" + brokerId + "] ";
    }

    private String shrinkLine(Partition p, IsrState.PendingShrinkIsr shrink) {
        List<Integer> newIsr = shrink.isr().stream().filter(id -> !shrink.outOfSyncReplicaIds().contains(id)).toList();
        outOfSyncAtLastShrink.clear();
        String replicas = shrink.outOfSyncReplicaIds().stream().map(id -> {
            ReplicaState state = p.remoteReplicaState(id).orElse(ReplicaState.EMPTY);
            outOfSyncAtLastShrink.put(id, state);
            return "(brokerId: " + id + ", endOffset: " + state.logEndOffset() + ", lastCaughtUpTimeMs: "
                    + state.lastCaughtUpTimeMs() + ")";
        }).collect(Collectors.joining(" "));
        return "Shrinking ISR from " + IsrState.format(shrink.isr()) + " to " + IsrState.format(newIsr)
                + ". Leader: (highWatermark: " + p.highWatermark() + ", endOffset: " + p.logEndOffset()
                + "). Out of sync replicas: " + replicas + ".";
    }

    private String truncationLine(int brokerId, Partition p, Seen before, Seen now) {
        int leaderId = p.leaderId();
        String prefix = "INFO [ReplicaFetcher replicaId=" + brokerId + ", leaderId=" + leaderId + ", fetcherId="
                + FetcherManager.fetcherId(tp, numFetchers) + "] ";
        Optional<EpochEndOffset> diverging = Optional.empty();
        if (before.latestEpoch().isPresent() && leaderId != PartitionRegistration.NO_LEADER) {
            diverging = admin.partitionState(leaderId, tp.topic(), tp.partition())
                    .filter(Partition::isLeader)
                    .map(leader -> leader.localLog().endOffsetForEpoch(before.latestEpoch().getAsInt()));
        }
        return prefix + diverging.map(d -> Truncation.truncationMessage(tp, now.logEndOffset(), d))
                .orElse("Truncating partition " + tp + " to offset " + now.logEndOffset());
    }
}
