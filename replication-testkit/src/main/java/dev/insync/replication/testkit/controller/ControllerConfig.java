package dev.insync.replication.testkit.controller;

/**
 * Settings of the {@link ReferenceController}, with Kafka's property names and defaults.
 *
 * @param brokerSessionTimeoutMs          {@code broker.session.timeout.ms}: a broker without a heartbeat
 *                                        for this long is fenced (LDR-4)
 * @param defaultMinInsyncReplicas        {@code min.insync.replicas} of topics created without their own
 * @param defaultUncleanLeaderElection    {@code unclean.leader.election.enable} of such topics (ISR-8)
 * @param maxMetadataDeltas               bound on the controller's metadata log (deltas kept for re-sending)
 */
public record ControllerConfig(long brokerSessionTimeoutMs, int defaultMinInsyncReplicas,
                               boolean defaultUncleanLeaderElection, int maxMetadataDeltas) {

    /** Kafka's defaults: 9000 ms session, min ISR 1, no unclean election; up to a million deltas. */
    public static final ControllerConfig DEFAULT = new ControllerConfig(9000, 1, false, 1_000_000);

    /** Validates the values. */
    public ControllerConfig {
        if (brokerSessionTimeoutMs <= 0) {
            throw new IllegalArgumentException("broker.session.timeout.ms must be positive, got " + brokerSessionTimeoutMs);
        }
        if (defaultMinInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1, got " + defaultMinInsyncReplicas);
        }
        if (maxMetadataDeltas < 1) {
            throw new IllegalArgumentException("maxMetadataDeltas must be positive, got " + maxMetadataDeltas);
        }
    }

    /** The same settings with another session timeout. */
    public ControllerConfig withBrokerSessionTimeoutMs(long ms) {
        return new ControllerConfig(ms, defaultMinInsyncReplicas, defaultUncleanLeaderElection, maxMetadataDeltas);
    }

    /** The same settings with another default min ISR. */
    public ControllerConfig withDefaultMinInsyncReplicas(int minIsr) {
        return new ControllerConfig(brokerSessionTimeoutMs, minIsr, defaultUncleanLeaderElection, maxMetadataDeltas);
    }

    /** The same settings with another default for unclean leader election. */
    public ControllerConfig withDefaultUncleanLeaderElection(boolean enable) {
        return new ControllerConfig(brokerSessionTimeoutMs, defaultMinInsyncReplicas, enable, maxMetadataDeltas);
    }
}
