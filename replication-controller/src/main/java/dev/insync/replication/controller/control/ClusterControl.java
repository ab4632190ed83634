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

package dev.insync.replication.controller.control;

import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.controller.record.BrokerShutdownRecord;
import dev.insync.replication.controller.record.FenceBrokerRecord;
import dev.insync.replication.controller.record.RegisterBrokerRecord;
import dev.insync.replication.controller.record.UnfenceBrokerRecord;
import dev.insync.replication.controller.state.BrokerEntry;
import dev.insync.replication.controller.state.ChangeSet;
import dev.insync.replication.controller.state.ControllerView;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;

/**
 * Broker operations of the controller (LDR-4, LDR-5, ISR-7): registration, heartbeats (unfencing,
 * controlled shutdown, offline replicas) and fencing. Liveness itself (when a session expires) is
 * the active controller's in-memory business (CTL-3); these operations only turn its decisions
 * into records.
 */
public final class ClusterControl {

    private static final Logger log = LoggerFactory.getLogger(ClusterControl.class);

    /** The answer to an unknown or old incarnation. */
    private static final HeartbeatResponse STALE = new HeartbeatResponse(Errors.STALE_BROKER_EPOCH, true, false);

    private ClusterControl() {
    }

    /**
     * LDR-4 / LDR-5: registers a new incarnation, fenced, with broker epoch = the offset of its
     * registration record. A broker registered before leaves every ISR (and its leaderships); if
     * the restart was unclean ({@code previousBrokerEpoch} -1, or not the epoch of its last
     * incarnation) it also leaves every ELR. A retried registration of the same incarnation (its
     * first answer was lost, so that incarnation never heartbeated and was never unfenced, and it
     * sends the same previous epoch) keeps the first attempt's verdict.
     *
     * @param previousIncarnationHeartbeated whether the active controller saw a heartbeat from the
     *                                       broker's current incarnation (in memory, CTL-3)
     * @throws ApiException {@code INVALID_REQUEST} for a negative broker id or previous epoch below -1
     */
    public static ControllerResult<RegisterBrokerResponse> registerBroker(ControllerView view, RegisterBrokerRequest request,
                                                                         boolean previousIncarnationHeartbeated) {
        int brokerId = request.brokerId();
        if (brokerId < 0 || request.previousBrokerEpoch() < -1) {
            throw new ApiException(Errors.INVALID_REQUEST, "Invalid registration: broker id " + brokerId
                    + ", previous broker epoch " + request.previousBrokerEpoch());
        }
        BrokerEntry previous = view.broker(brokerId);
        long epoch = view.nextOffset();
        boolean unclean;
        if (previous != null && !previousIncarnationHeartbeated && !previous.everUnfenced()
                && previous.previousBrokerEpoch() == request.previousBrokerEpoch()) {
            // The same incarnation again: the first attempt already judged clean or unclean.
            unclean = previous.uncleanRestart();
        } else {
            unclean = previous != null && request.previousBrokerEpoch() != previous.brokerEpoch();
        }
        ChangeSet changes = new ChangeSet(view);
        changes.append(RegisterBrokerRecord.newIncarnation(brokerId, epoch, request.previousBrokerEpoch(), unclean,
                request.endpoints()));
        if (previous != null) {
            log.info("Broker {} re-registered with epoch {} (previous {}, {} restart), endpoints {}", brokerId, epoch,
                    previous.brokerEpoch(), unclean ? "unclean" : "clean", request.endpoints());
            ReplicationControl.removeFromPartitions(changes, brokerId, unclean);
        } else {
            log.info("Broker {} registered with epoch {}, endpoints {}", brokerId, epoch, request.endpoints());
        }
        return new ControllerResult<>(changes.records(), new RegisterBrokerResponse(Errors.NONE, epoch));
    }

    /**
     * LDR-4: a heartbeat. An unknown or old incarnation is answered {@code STALE_BROKER_EPOCH}.
     * Otherwise: replicas reported offline leave their partitions; a requested controlled shutdown
     * starts (the broker leaves every ISR and leadership, ISR-7); a fenced broker whose metadata
     * offset has reached its broker epoch is unfenced and leaderless partitions are elected where
     * it can lead. The answer says {@code shouldShutDown} once a shutting-down broker leads nothing.
     */
    public static ControllerResult<HeartbeatResponse> heartbeat(ControllerView view, HeartbeatRequest request) {
        BrokerEntry broker = view.broker(request.brokerId());
        if (broker == null || broker.brokerEpoch() != request.brokerEpoch()) {
            return new ControllerResult<>(List.of(), STALE);
        }
        ChangeSet changes = new ChangeSet(view);
        if (!request.offlineReplicas().isEmpty()) {
            ReplicationControl.takeReplicasOffline(changes, broker, request.offlineReplicas());
            broker = changes.broker(broker.brokerId());
        }
        if (request.wantShutDown() && !broker.inControlledShutdown()) {
            log.info("Broker {} (epoch {}) starts a controlled shutdown", broker.brokerId(), broker.brokerEpoch());
            changes.append(new BrokerShutdownRecord(broker.brokerId(), broker.brokerEpoch()));
            ReplicationControl.removeFromPartitions(changes, broker.brokerId(), false);
        } else if (broker.fenced() && !broker.inControlledShutdown() && !request.wantShutDown()
                && request.metadataOffset() >= broker.brokerEpoch()) {
            log.info("Broker {} (epoch {}) caught up with metadata at offset {}: unfenced", broker.brokerId(),
                    broker.brokerEpoch(), request.metadataOffset());
            changes.append(new UnfenceBrokerRecord(broker.brokerId(), broker.brokerEpoch()));
            ReplicationControl.electLeaderless(changes, Optional.empty());
        }
        BrokerEntry after = changes.broker(broker.brokerId());
        int id = after.brokerId();
        boolean shouldShutDown = after.inControlledShutdown()
                && changes.partitions().stream().noneMatch(p -> p.leader() == id);
        return new ControllerResult<>(changes.records(), new HeartbeatResponse(Errors.NONE, after.fenced(), shouldShutDown));
    }

    /**
     * ISR-7: fences {@code brokerId} (its session expired, or an administrator asks): it leaves every
     * ISR and its leaderships move; it stays in the ELRs. Nothing happens if it is unknown, already
     * fenced, or its current incarnation is not {@code expectedEpoch} (-1: whatever it is).
     *
     * @return whether it was fenced
     */
    public static ControllerResult<Boolean> fenceBroker(ControllerView view, int brokerId, long expectedEpoch) {
        BrokerEntry broker = view.broker(brokerId);
        if (broker == null || broker.fenced() || (expectedEpoch != -1 && broker.brokerEpoch() != expectedEpoch)) {
            return new ControllerResult<>(List.of(), false);
        }
        log.info("Fencing broker {} (epoch {})", brokerId, broker.brokerEpoch());
        ChangeSet changes = new ChangeSet(view);
        changes.append(new FenceBrokerRecord(brokerId, broker.brokerEpoch()));
        ReplicationControl.removeFromPartitions(changes, brokerId, false);
        return new ControllerResult<>(changes.records(), true);
    }
}
