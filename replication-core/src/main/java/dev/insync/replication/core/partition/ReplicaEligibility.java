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
