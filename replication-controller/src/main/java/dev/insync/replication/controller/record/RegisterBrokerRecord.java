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

package dev.insync.replication.controller.record;

import dev.insync.replication.core.metadata.Endpoint;

import java.util.List;

/**
 * LDR-4 / LDR-5: a new incarnation of a broker registered. In the log its broker epoch is the
 * record's own offset (as in KRaft), so epochs grow strictly with every registration, and it is
 * always fenced, not shutting down and never unfenced; a snapshot carries the broker's current
 * flags in the same record.
 *
 * @param brokerId            the broker
 * @param brokerEpoch         the incarnation's epoch: the offset of the registration record
 * @param previousBrokerEpoch the epoch the broker sent from its clean-shutdown marker, -1 if none;
 *                            kept so that a retried registration of the same incarnation is
 *                            recognised (its first answer was lost)
 * @param uncleanRestart      the controller judged the restart unclean (LDR-5): the broker was
 *                            removed from every ELR and cannot be elected from one
 * @param fenced              fenced (true for every registration in the log)
 * @param inControlledShutdown in controlled shutdown (false in the log)
 * @param everUnfenced        unfenced at least once since registering (false in the log); a retried
 *                            registration is only recognised before that
 * @param endpoints           the incarnation's advertised listeners (version 1; a version 0 record
 *                            decodes with none)
 */
public record RegisterBrokerRecord(int brokerId, long brokerEpoch, long previousBrokerEpoch, boolean uncleanRestart,
                                   boolean fenced, boolean inControlledShutdown, boolean everUnfenced,
                                   List<Endpoint> endpoints)
        implements MetadataRecord {

    /** Validates the fields; immutable copy of the endpoints. */
    public RegisterBrokerRecord {
        endpoints = Endpoint.checkedList(brokerId, endpoints);
        RecordChecks.brokerId("brokerId", brokerId);
        RecordChecks.nonNegative("brokerEpoch", brokerEpoch);
        if (previousBrokerEpoch < -1) {
            throw new IllegalArgumentException("previousBrokerEpoch must be an epoch or -1, got " + previousBrokerEpoch);
        }
        if (!fenced && !everUnfenced) {
            throw new IllegalArgumentException("Broker " + brokerId + " is unfenced but never was unfenced");
        }
    }

    /** A record without endpoints (as version 0 holds it). */
    public RegisterBrokerRecord(int brokerId, long brokerEpoch, long previousBrokerEpoch, boolean uncleanRestart,
                                boolean fenced, boolean inControlledShutdown, boolean everUnfenced) {
        this(brokerId, brokerEpoch, previousBrokerEpoch, uncleanRestart, fenced, inControlledShutdown, everUnfenced,
                List.of());
    }

    /** The record of a new registration as the log holds it: fenced, not shutting down. */
    public static RegisterBrokerRecord newIncarnation(int brokerId, long brokerEpoch, long previousBrokerEpoch,
                                                      boolean uncleanRestart, List<Endpoint> endpoints) {
        return new RegisterBrokerRecord(brokerId, brokerEpoch, previousBrokerEpoch, uncleanRestart, true, false, false,
                endpoints);
    }

    /** A new registration without endpoints. */
    public static RegisterBrokerRecord newIncarnation(int brokerId, long brokerEpoch, long previousBrokerEpoch,
                                                      boolean uncleanRestart) {
        return newIncarnation(brokerId, brokerEpoch, previousBrokerEpoch, uncleanRestart, List.of());
    }

    /** Whether this is the shape a registration has in the log (not a snapshot's current state). */
    public boolean isNewIncarnation() {
        return fenced && !inControlledShutdown && !everUnfenced;
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.REGISTER_BROKER;
    }
}
