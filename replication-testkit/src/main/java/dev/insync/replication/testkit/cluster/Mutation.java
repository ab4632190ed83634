package dev.insync.replication.testkit.cluster;

/**
 * TEST-ONLY deliberate bugs that an {@link InMemoryCluster} can inject at its own seams (the
 * broker-side request handlers it wires), so that the randomized simulation can prove it catches a
 * broken library. Never enable one outside a test that asserts the invariant checker reports a
 * violation. None of them touches the core classes: they rewrite what crosses the in-memory network.
 */
public enum Mutation {

    /**
     * The leader's fetch handler strips {@code divergingEpoch} from every fetch response, so a
     * follower whose log diverged is never told to truncate (FET-3 skipped): it keeps records the
     * leader never had and its log stops matching the leader's (INV-3, and INV-1/INV-2 when such a
     * follower later leads).
     */
    STRIP_DIVERGING_EPOCH,

    /**
     * The broker's produce handler treats {@code acks=all} as {@code acks=1}: the request is
     * acknowledged right after the leader's local append instead of waiting for the HW (PRO-3), and
     * the min ISR check before the append (PRO-2) is skipped too. A leader crash before the
     * followers fetch then loses an acknowledged acks=all record (INV-1).
     */
    ACK_ALL_AFTER_LOCAL_APPEND
}
