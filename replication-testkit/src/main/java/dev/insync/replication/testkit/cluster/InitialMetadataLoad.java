package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A new broker incarnation's first metadata load, as Kafka's broker does it: the controller replays
 * its whole metadata log to a new incarnation, and the broker must not act on the historical states
 * one by one (a replayed old registration naming it leader of an old epoch would make it
 * {@code makeLeader} in a stale epoch and write that stale epoch into its leader-epoch cache at its
 * LEO, destroying the cache entries that let truncation find a divergence). So deltas are held until
 * the broker has the delta of its own registration (offset = its broker epoch, the end of the replay),
 * then applied as one merged delta (the current image); later deltas pass straight through.
 */
final class InitialMetadataLoad implements Consumer<MetadataDelta> {

    /** How often the load checks whether the registration answer has arrived. */
    private static final long CHECK_INTERVAL_MS = 1;

    private final Consumer<MetadataDelta> applier;
    private final LongSupplier brokerEpoch;
    private final Scheduler scheduler;
    private final Executor executor;
    private final List<MetadataDelta> pending = new ArrayList<>();
    private boolean loaded;
    private boolean checkScheduled;

    InitialMetadataLoad(Consumer<MetadataDelta> applier, LongSupplier brokerEpoch, Scheduler scheduler, Executor executor) {
        this.applier = applier;
        this.brokerEpoch = brokerEpoch;
        this.scheduler = scheduler;
        this.executor = executor;
    }

    @Override
    public void accept(MetadataDelta delta) {
        if (loaded) {
            applier.accept(delta);
            return;
        }
        pending.add(delta);
        maybePublish();
    }

    private void maybePublish() {
        long epoch = brokerEpoch.getAsLong();
        if (epoch >= 0 && !pending.isEmpty() && pending.get(pending.size() - 1).offset() >= epoch) {
            loaded = true;
            applier.accept(merge(pending));
            pending.clear();
        } else if (!checkScheduled) {
            // The registration answer arrives after the replay (same link, FIFO): look again shortly.
            checkScheduled = true;
            scheduler.schedule(executor, () -> {
                checkScheduled = false;
                if (!loaded) {
                    maybePublish();
                }
            }, CHECK_INTERVAL_MS);
        }
    }

    /** The state after all of {@code deltas}, as one delta at the last offset. */
    static MetadataDelta merge(List<MetadataDelta> deltas) {
        Map<Integer, BrokerRegistration> brokers = new LinkedHashMap<>();
        Map<TopicPartition, PartitionRegistration> partitions = new LinkedHashMap<>();
        Set<TopicPartition> deleted = new LinkedHashSet<>();
        Map<String, Integer> minIsr = new LinkedHashMap<>();
        for (MetadataDelta d : deltas) {
            d.brokers().forEach(b -> brokers.put(b.brokerId(), b));
            for (TopicPartition tp : d.deletedPartitions()) {
                partitions.remove(tp);
                deleted.add(tp);
            }
            for (PartitionRegistration p : d.partitions()) {
                deleted.remove(p.topicPartition());
                partitions.put(p.topicPartition(), p);
            }
            minIsr.putAll(d.minInsyncReplicasByTopic());
        }
        return new MetadataDelta(deltas.get(deltas.size() - 1).offset(), new ArrayList<>(brokers.values()),
                new ArrayList<>(partitions.values()), new ArrayList<>(deleted), minIsr);
    }
}
