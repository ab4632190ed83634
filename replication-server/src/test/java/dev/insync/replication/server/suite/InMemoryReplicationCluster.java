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

package dev.insync.replication.server.suite;

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.PollOutcome;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestConsumer;
import dev.insync.replication.testkit.cluster.TestProducer;
import dev.insync.replication.testkit.sim.NodeId;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;

/**
 * {@link ReplicationCluster} on the testkit's {@link InMemoryCluster}: three {@code InsyncBroker}s
 * and a {@code QuorumController} on the in-memory network, in simulated time (seeded, so a run
 * repeats event for event). Every wait advances virtual time, so the suite's seconds cost
 * milliseconds here.
 */
final class InMemoryReplicationCluster implements ReplicationCluster {

    private final InMemoryCluster cluster;
    private final TestProducer producer;
    private final TestConsumer consumer;

    InMemoryReplicationCluster(Settings settings, Path dataDir) {
        this.cluster = InMemoryCluster.builder().brokers(3).seed(42).dataDir(dataDir)
                .config("replica.lag.time.max.ms", settings.replicaLagTimeMaxMs())
                .config("broker.session.timeout.ms", settings.sessionTimeoutMs())
                .config(NettyReplicationCluster.COMMON_BROKER_PROPERTIES)
                .build();
        this.producer = cluster.producer("suite");
        this.consumer = cluster.consumer("suite");
    }

    @Override
    public List<Integer> brokerIds() {
        return cluster.brokerIds();
    }

    @Override
    public void createTopic(String topic, List<Integer> replicas, Map<String, String> configs) {
        configs.keySet().forEach(name -> {
            if (!name.equals(ControllerConfig.MIN_INSYNC_REPLICAS) && !name.equals(ControllerConfig.UNCLEAN_LEADER_ELECTION_ENABLE)) {
                throw new IllegalArgumentException("The in-memory suite cluster sets only " + ControllerConfig.MIN_INSYNC_REPLICAS
                        + " and " + ControllerConfig.UNCLEAN_LEADER_ELECTION_ENABLE + ", not " + name + " of " + topic);
            }
        });
        ControllerConfig defaults = cluster.controller().config();
        int minIsr = Integer.parseInt(configs.getOrDefault(ControllerConfig.MIN_INSYNC_REPLICAS,
                Integer.toString(defaults.defaultMinInsyncReplicas())));
        boolean unclean = Boolean.parseBoolean(configs.getOrDefault(ControllerConfig.UNCLEAN_LEADER_ELECTION_ENABLE,
                Boolean.toString(defaults.defaultUncleanLeaderElection())));
        cluster.await(cluster.controller().createTopic(topic, List.of(List.copyOf(replicas)), minIsr, unclean));
        cluster.awaitLeader(topic, 0);
    }

    @Override
    public void setMinInsyncReplicas(String topic, int minInsyncReplicas) {
        cluster.setMinInsyncReplicas(topic, minInsyncReplicas);
    }

    @Override
    public PartitionRegistration describe(TopicPartition tp) {
        return cluster.controller().partition(tp)
                .orElseThrow(() -> new AssertionError("The controller does not know " + tp));
    }

    @Override
    public CompletableFuture<ProduceOutcome> produce(TopicPartition tp, String value, int acks, long timeoutMs) {
        return producer.send(tp.topic(), tp.partition(), null, value, acks, timeoutMs);
    }

    @Override
    public List<String> consume(TopicPartition tp, long fromOffset) {
        consumer.seek(tp.topic(), tp.partition(), fromOffset);
        List<String> values = new ArrayList<>();
        while (true) {
            PollOutcome poll = await(consumer.startPoll(tp.topic(), tp.partition(), TestConsumer.POLL_TIMEOUT_MS).outcome(),
                    TestConsumer.POLL_TIMEOUT_MS * 2);
            if (poll.timedOut() || poll.error() != Errors.NONE) {
                throw new AssertionError("Consumer fetch of " + tp + " at " + consumer.position(tp.topic(), tp.partition())
                        + ": " + poll.outcomeName());
            }
            if (poll.records().isEmpty()) {
                return values;
            }
            poll.textRecords().forEach(r -> values.add(r.value()));
        }
    }

    @Override
    public Optional<Partition> partitionOn(int brokerId, TopicPartition tp) {
        return cluster.broker(brokerId).partition(tp);
    }

    @Override
    public Optional<Log> logOn(int brokerId, TopicPartition tp) {
        return cluster.broker(brokerId).log(tp);
    }

    @Override
    public int parkedFetches(int brokerId) {
        return cluster.broker(brokerId).replicaManager().map(rm -> rm.pendingFetchCount()).orElse(0);
    }

    @Override
    public Path logDir(int brokerId) {
        return cluster.broker(brokerId).dataDir();
    }

    @Override
    public void pause(int brokerId) {
        cluster.pause(brokerId);
    }

    @Override
    public void resume(int brokerId) {
        cluster.resume(brokerId);
    }

    @Override
    public void cutFetches(int brokerId) {
        for (int other : cluster.brokerIds()) {
            if (other != brokerId) {
                cluster.partition(brokerId, other);
            }
        }
    }

    @Override
    public void healFetches(int brokerId) {
        for (int other : cluster.brokerIds()) {
            if (other != brokerId) {
                cluster.network().heal(NodeId.broker(brokerId), NodeId.broker(other));
            }
        }
    }

    @Override
    public void isolate(int brokerId) {
        cluster.isolate(brokerId);
    }

    @Override
    public void rejoin(int brokerId) {
        cluster.network().rejoin(NodeId.broker(brokerId));
    }

    @Override
    public void haltController() {
        cluster.killController();
    }

    @Override
    public void restartController() {
        cluster.restartController();
        awaitCondition("the controller active again", InMemoryCluster.DEFAULT_AWAIT_MS, () -> cluster.controller().isActive());
    }

    @Override
    public void halt(int brokerId) {
        cluster.kill(brokerId);
    }

    @Override
    public void restart(int brokerId) {
        cluster.restart(brokerId);
        awaitCondition("broker " + brokerId + " serving and unfenced after its restart", InMemoryCluster.DEFAULT_AWAIT_MS,
                () -> cluster.broker(brokerId).insyncBroker()
                        .map(b -> b.serving().isDone() && !b.lifecycle().isFenced()).orElse(false));
    }

    @Override
    public boolean controlledShutdown(int brokerId) {
        try {
            cluster.await(cluster.controlledShutdown(brokerId));
            return true;
        } catch (CompletionException e) {
            return false;
        }
    }

    @Override
    public long nowMs() {
        return cluster.nowMs();
    }

    @Override
    public void runFor(long ms) {
        cluster.runFor(ms);
    }

    @Override
    public void awaitCondition(String what, long boundMs, BooleanSupplier condition) {
        if (!cluster.runUntil(condition, boundMs)) {
            throw new AssertionError("Not within " + boundMs + " ms of virtual time: " + what);
        }
    }

    @Override
    public <T> T await(CompletableFuture<T> future, long boundMs) {
        try {
            return cluster.await(future, boundMs);
        } catch (IllegalStateException e) {
            throw new AssertionError("Not completed within " + boundMs + " ms of virtual time", e);
        }
    }

    @Override
    public void close() {
        cluster.close();
    }

    @Override
    public String toString() {
        return "in-memory cluster (simulated time)";
    }
}
