package dev.insync.replication.testkit.simulation;

import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.testkit.cluster.BrokerStatus;
import dev.insync.replication.testkit.cluster.ConsumedRecord;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestConsumer;
import dev.insync.replication.testkit.cluster.TestProducer;
import dev.insync.replication.testkit.history.History;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.history.StateSample;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Records what clients and the operator of an {@link InMemoryCluster} did and saw, as a
 * {@link History}, plus {@link StateSample}s of the brokers. Every client event is stamped with the
 * virtual time at which the client observed it (the callbacks run on the clients' executors inside
 * the event loop), so the history is what an outside observer would have written down.
 * Used by {@link Simulation} and by directed scenarios in tests.
 */
public final class Recorder {

    private final InMemoryCluster cluster;
    private final String topic;
    private final int partition;
    private final History history = new History();
    private final List<StateSample> samples = new ArrayList<>();
    private final Set<Long> outstanding = new HashSet<>();
    private long nextProduceId = 1;
    private long acked;
    private long ackedAll;

    /** Records for partition {@code topic-partition} of {@code cluster}. */
    public Recorder(InMemoryCluster cluster, String topic, int partition) {
        this.cluster = cluster;
        this.topic = topic;
        this.partition = partition;
    }

    /** The history so far. */
    public History history() {
        return history;
    }

    /** The state samples so far. */
    public List<StateSample> samples() {
        return samples;
    }

    /** Produce calls acknowledged with NONE so far. */
    public long acked() {
        return acked;
    }

    /** acks=all produce calls acknowledged with NONE so far. */
    public long ackedAll() {
        return ackedAll;
    }

    /** Produce calls invoked and not completed yet. */
    public int outstandingProduces() {
        return outstanding.size();
    }

    /** Records the configuration in force from now on. */
    public void config(int minIsr, List<Integer> replicas, boolean unclean) {
        history.add(new HistoryEvent.Config(cluster.nowMs(), minIsr, replicas, unclean));
    }

    /** Records an injected fault. */
    public void fault(String kind, List<Integer> brokers) {
        history.add(new HistoryEvent.Fault(cluster.nowMs(), kind, brokers));
    }

    /**
     * Sends {@code value} (unique per call) with {@code acks} (1 or -1) and records the invocation
     * now and the outcome when the client sees it.
     */
    public CompletableFuture<ProduceOutcome> produce(TestProducer producer, int acks, String value, long timeoutMs) {
        long id = nextProduceId++;
        history.add(new HistoryEvent.ProduceInvoke(cluster.nowMs(), id, producer.name(), acks == -1 ? "all" : String.valueOf(acks),
                value));
        outstanding.add(id);
        CompletableFuture<ProduceOutcome> future = producer.send(topic, partition, null, value, acks, timeoutMs);
        return future.whenComplete((outcome, error) -> {
            outstanding.remove(id);
            long t = cluster.nowMs();
            if (error != null) {
                history.add(new HistoryEvent.ProduceFail(t, id, "UNKNOWN_SERVER_ERROR"));
            } else if (outcome.isSuccess()) {
                acked++;
                if (acks == -1) {
                    ackedAll++;
                }
                history.add(new HistoryEvent.ProduceOk(t, id, outcome.offset(), outcome.leaderEpoch()));
            } else {
                history.add(new HistoryEvent.ProduceFail(t, id, outcome.error().name()));
            }
        });
    }

    /** Polls once from the consumer's position and records every record it returns, when it sees them. */
    public CompletableFuture<List<ConsumedRecord>> poll(TestConsumer consumer) {
        return consumer.poll(topic, partition).whenComplete((records, error) -> {
            if (records == null) {
                return;
            }
            long t = cluster.nowMs();
            for (ConsumedRecord r : records) {
                history.add(new HistoryEvent.Consume(t, consumer.name(), r.offset(), r.value()));
            }
        });
    }

    /** Samples every broker that is up (running or paused) and hosts the partition. */
    public void sample() {
        long t = cluster.nowMs();
        for (int b : cluster.brokerIds()) {
            if (cluster.broker(b).status() == BrokerStatus.DOWN) {
                continue;
            }
            Optional<Partition> p = cluster.admin().partitionState(b, topic, partition);
            if (p.isEmpty()) {
                continue;
            }
            Partition part = p.get();
            boolean leader = part.isLeader();
            List<long[]> epochs = new ArrayList<>();
            for (EpochEntry e : cluster.admin().epochEntries(b, topic, partition)) {
                epochs.add(new long[] {e.epoch(), e.startOffset()});
            }
            samples.add(new StateSample(t, b, cluster.admin().incarnation(b), leader, part.leaderEpoch(),
                    leader ? part.isrState().maximalIsr() : List.of(), part.highWatermark(), part.logEndOffset(), epochs));
        }
    }

    /** Records every broker's final HW, LEO and log; every broker must be running. */
    public void finals() {
        for (int b : cluster.brokerIds()) {
            List<HistoryEvent.LogEntry> log = new ArrayList<>();
            for (ConsumedRecord r : cluster.admin().records(b, topic, partition)) {
                log.add(new HistoryEvent.LogEntry(r.offset(), r.leaderEpoch(), r.value()));
            }
            history.add(new HistoryEvent.Final(b, cluster.admin().highWatermark(b, topic, partition),
                    cluster.admin().logEndOffset(b, topic, partition), log));
        }
    }
}
