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

package dev.insync.replication.core.server;

import dev.insync.replication.log.TopicPartition;

import java.nio.file.Path;
import java.util.Set;

/**
 * What a {@link ReplicaManager} tells its embedder about failed log directories (§9, Kafka's
 * {@code LogDirFailureChannel}). An I/O failure takes only the directory it happened in offline: its
 * partitions answer {@code KAFKA_STORAGE_ERROR}, the others keep being served. The controller has to
 * learn which replicas are offline so that leadership and ISR membership move away from them (Kafka's
 * KIP-858 reports offline directories in the broker heartbeat): the embedder passes
 * {@link ReplicaManager#offlineReplicas()} in every heartbeat
 * ({@link dev.insync.replication.core.metadata.HeartbeatRequest#offlineReplicas()}), and should send
 * one at once when told here.
 *
 * <p>Called on the thread that met the failure (a request, fetcher or background thread), after the
 * manager's own state changed; implementations must not block.
 */
public interface LogDirFailureListener {

    /**
     * {@code dir} went offline; {@code offlinePartitions} are this broker's replicas in it, which now
     * answer {@code KAFKA_STORAGE_ERROR} and are no longer fetched.
     */
    default void onLogDirOffline(Path dir, Set<TopicPartition> offlinePartitions) {
    }

    /**
     * No log directory is online any more: the manager stops (as {@link ReplicaManager#shutdown()}, on
     * its own executor right after this call), as Kafka halts such a broker. The embedder should stop
     * the rest of the broker (heartbeats, request handling).
     */
    default void onNoOnlineLogDir() {
    }

    /** Ignores everything. */
    LogDirFailureListener NONE = new LogDirFailureListener() {
    };
}
