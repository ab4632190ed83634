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

package dev.insync.replication.controller.api;

import dev.insync.replication.core.metadata.Endpoint;

import java.util.List;

/**
 * LDR-4 / LDR-5: a new broker incarnation registers.
 *
 * @param brokerId            the broker
 * @param previousBrokerEpoch the epoch from its clean-shutdown marker, -1 after an unclean stop
 * @param endpoints           its advertised listeners (Kafka's {@code advertised.listeners}), which
 *                            the registration record keeps and metadata hands to every broker and
 *                            client; empty if it has none
 */
public record RegisterBrokerRequest(int brokerId, long previousBrokerEpoch, List<Endpoint> endpoints) {

    /** Checks the endpoints; immutable copy. */
    public RegisterBrokerRequest {
        endpoints = Endpoint.checkedList(brokerId, endpoints);
    }

    /** A registration without endpoints. */
    public RegisterBrokerRequest(int brokerId, long previousBrokerEpoch) {
        this(brokerId, previousBrokerEpoch, List.of());
    }
}
