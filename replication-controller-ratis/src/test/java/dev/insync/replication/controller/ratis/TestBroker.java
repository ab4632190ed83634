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

package dev.insync.replication.controller.ratis;

import dev.insync.replication.controller.channel.QuorumControllerChannel;
import dev.insync.replication.core.alter.AlterPartitionManager;
import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.TopicPartition;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * A broker's controller-facing half, with core's real managers: {@link BrokerLifecycleManager}
 * (register, heartbeat), {@link AlterPartitionManager} (ISR-5), and a small follower of the metadata
 * log that long-polls {@link QuorumControllerChannel#fetchMetadata} from its offset and keeps the
 * latest registration of every partition (the heartbeat's metadata offset, so it gets unfenced).
 */
final class TestBroker implements AutoCloseable {

    final int brokerId;
    final BrokerLifecycleManager lifecycle;
    final AlterPartitionManager alterPartitions;
    final Map<TopicPartition, PartitionRegistration> partitions = new ConcurrentHashMap<>();
    private final QuorumControllerChannel channel;
    private final Scheduler scheduler;
    private final Executor executor;
    private volatile long metadataOffset = -1;
    private volatile boolean closed;

    TestBroker(int brokerId, QuorumControllerChannel channel, Scheduler scheduler, long heartbeatIntervalMs) {
        this.brokerId = brokerId;
        this.channel = channel;
        this.scheduler = scheduler;
        this.executor = scheduler.newSerialExecutor("broker-" + brokerId);
        this.lifecycle = BrokerLifecycleManager.builder(brokerId, channel, scheduler).executor(executor)
                .heartbeatIntervalMs(heartbeatIntervalMs).registrationRetryBackoffMs(100)
                .metadataOffset(() -> metadataOffset).build();
        this.alterPartitions = new AlterPartitionManager(brokerId, lifecycle::brokerEpoch, channel,
                scheduler.newSerialExecutor("alter-" + brokerId), scheduler, 100, 5_000);
    }

    TestBroker start() {
        lifecycle.start();
        executor.execute(this::fetch);
        return this;
    }

    long metadataOffset() {
        return metadataOffset;
    }

    private void fetch() {
        if (closed) {
            return;
        }
        long after = metadataOffset;
        channel.fetchMetadata(new MetadataFetchRequest(brokerId, after, 200, 1000)).whenComplete((response, error) -> {
            if (closed) {
                return;
            }
            if (error != null || response.afterOffset() != metadataOffset) {
                scheduler.schedule(executor, this::fetch, 50);
                return;
            }
            executor.execute(() -> {
                apply(response);
                fetch();
            });
        });
    }

    private void apply(MetadataFetchResponse response) {
        response.image().ifPresent(image -> {
            partitions.clear();
            image.partitions().forEach(p -> partitions.put(p.topicPartition(), p));
        });
        for (MetadataDelta delta : response.deltas()) {
            delta.partitions().forEach(p -> partitions.put(p.topicPartition(), p));
        }
        metadataOffset = response.endOffset();
    }

    @Override
    public void close() {
        closed = true;
        alterPartitions.close();
        lifecycle.close();
    }
}
