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

package dev.insync.replication.core.metadata;

import dev.insync.replication.log.TopicPartition;

import java.util.List;
import java.util.Objects;

/**
 * A broker heartbeat (LDR-4, CTL-3), sent every {@code broker.heartbeat.interval.ms} through
 * {@link ControllerChannel#heartbeat}.
 *
 * @param brokerId         the broker
 * @param brokerEpoch      its current epoch
 * @param metadataOffset   the offset of the last metadata delta it applied, -1 if none
 * @param wantShutDown     asks for (or continues) a controlled shutdown
 * @param offlineReplicas  every replica of this broker whose log directory is offline (§9; Kafka's KIP-858
 *                         reports offline directories here), all of them in every heartbeat; the controller
 *                         removes the broker from their ISR and ELR and elects another leader (ISR-8)
 */
public record HeartbeatRequest(int brokerId, long brokerEpoch, long metadataOffset, boolean wantShutDown,
                               List<TopicPartition> offlineReplicas) {

    /** Immutable copy. */
    public HeartbeatRequest {
        offlineReplicas = List.copyOf(Objects.requireNonNull(offlineReplicas, "offlineReplicas"));
    }

    /** A heartbeat of a broker with no offline replica. */
    public HeartbeatRequest(int brokerId, long brokerEpoch, long metadataOffset, boolean wantShutDown) {
        this(brokerId, brokerEpoch, metadataOffset, wantShutDown, List.of());
    }
}
