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

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A broker's requests to the controller. Metadata flows the other way as {@link MetadataDelta}s
 * that the embedder hands to the broker's {@code ReplicaManager}. Stages may fail (transport error)
 * or never complete (lost link); callers keep their own retries and timeouts.
 */
public interface ControllerChannel {

    /** ISR-5: a batch of ISR proposals. */
    CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request);

    /**
     * LDR-4/LDR-5: registers a new incarnation of {@code brokerId}.
     *
     * @param previousBrokerEpoch the epoch from the clean-shutdown marker, -1 after an unclean stop
     * @param endpoints           the incarnation's advertised listeners (empty if it has none, e.g.
     *                            on the in-memory network); every broker and client learns them
     *                            from metadata
     * @return the new broker epoch
     */
    CompletionStage<Long> registerBroker(int brokerId, long previousBrokerEpoch, List<Endpoint> endpoints);

    /** A registration without endpoints (tests and the in-memory network, where nobody dials an address). */
    default CompletionStage<Long> registerBroker(int brokerId, long previousBrokerEpoch) {
        return registerBroker(brokerId, previousBrokerEpoch, List.of());
    }

    /**
     * LDR-4: a heartbeat; {@code wantShutDown} asks for a controlled shutdown, {@code offlineReplicas}
     * lists the broker's replicas whose log directory is offline (§9).
     *
     * @return the controller's answer
     */
    CompletionStage<HeartbeatResponse> heartbeat(HeartbeatRequest request);

    /**
     * The controller's answer to a heartbeat.
     *
     * @param error          NONE, or STALE_BROKER_EPOCH for an old incarnation
     * @param fenced         the broker is fenced
     * @param shouldShutDown a requested controlled shutdown is complete: leadership has moved away
     */
    record HeartbeatResponse(dev.insync.replication.log.Errors error, boolean fenced, boolean shouldShutDown) {
    }
}
