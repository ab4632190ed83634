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
import java.util.Optional;

/**
 * The controller's view of one broker (LDR-4, ISR-3).
 *
 * @param brokerId              broker id
 * @param brokerEpoch           epoch of the current incarnation (new on every restart)
 * @param fenced                no heartbeat within the session timeout, or not yet caught up
 * @param inControlledShutdown  shutting down through the controller
 * @param endpoints             LDR-4: the advertised listeners the incarnation registered (empty for a
 *                              broker that registered none, e.g. on the in-memory network)
 */
public record BrokerRegistration(int brokerId, long brokerEpoch, boolean fenced, boolean inControlledShutdown,
                                 List<Endpoint> endpoints) {

    /** Checks; immutable copy of the endpoints. */
    public BrokerRegistration {
        endpoints = Endpoint.checkedList(brokerId, endpoints);
    }

    /** A registration without endpoints. */
    public BrokerRegistration(int brokerId, long brokerEpoch, boolean fenced, boolean inControlledShutdown) {
        this(brokerId, brokerEpoch, fenced, inControlledShutdown, List.of());
    }

    /** Whether the broker may be in an ISR or lead (ISR-3, ISR-8). */
    public boolean isActive() {
        return !fenced && !inControlledShutdown;
    }

    /** The endpoint a peer on {@code listenerName} dials ({@link Endpoint#forListener}). */
    public Optional<Endpoint> endpoint(String listenerName) {
        return Endpoint.forListener(endpoints, listenerName);
    }
}
