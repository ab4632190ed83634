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

package dev.insync.replication.core.partition;

import java.util.OptionalLong;

/**
 * The leader's view of broker metadata that the ISR and fetch rules need (ISR-3, FET-2). Backed by the
 * broker's metadata image; must be safe to call from any thread.
 */
public interface ReplicaEligibility {

    /**
     * ISR-3: the broker is registered, not fenced, not in controlled shutdown, and {@code brokerEpochFromFetch}
     * equals its registered epoch (so a stale fetch from before a restart cannot put it back).
     */
    boolean isBrokerEligible(int brokerId, long brokerEpochFromFetch);

    /** FET-2: the broker's registered epoch, empty if it is not registered. */
    OptionalLong registeredBrokerEpoch(int brokerId);

    /** For tests and single-broker use: every broker is eligible and no epoch is checked. */
    ReplicaEligibility ALL_ELIGIBLE = new ReplicaEligibility() {
        @Override
        public boolean isBrokerEligible(int brokerId, long brokerEpochFromFetch) {
            return true;
        }

        @Override
        public OptionalLong registeredBrokerEpoch(int brokerId) {
            return OptionalLong.empty();
        }
    };
}
