package dev.insync.replication.testkit.network;

/**
 * Behaviour of one directed link: each message takes a delay drawn uniformly from
 * {@code [minDelayMs, maxDelayMs]} (from the simulation's seeded random source) and is silently
 * dropped with probability {@code dropProbability}. Messages on one link never overtake each
 * other, whatever their delays (TCP ordering).
 *
 * @param minDelayMs       smallest delay, at least 0
 * @param maxDelayMs       largest delay, at least {@code minDelayMs}
 * @param dropProbability  in [0, 1]
 */
public record LinkConfig(long minDelayMs, long maxDelayMs, double dropProbability) {

    /** The default: 1 ms, no loss. */
    public static final LinkConfig DEFAULT = new LinkConfig(1, 1, 0.0);

    /** Validates the ranges. */
    public LinkConfig {
        if (minDelayMs < 0 || maxDelayMs < minDelayMs) {
            throw new IllegalArgumentException("Invalid link delay range [" + minDelayMs + ", " + maxDelayMs + "] ms");
        }
        if (!(dropProbability >= 0.0 && dropProbability <= 1.0)) {
            throw new IllegalArgumentException("Drop probability " + dropProbability + " is not in [0, 1]");
        }
    }

    /** A fixed delay and no loss. */
    public static LinkConfig fixed(long delayMs) {
        return new LinkConfig(delayMs, delayMs, 0.0);
    }

    /** A uniform random delay and no loss. */
    public static LinkConfig uniform(long minDelayMs, long maxDelayMs) {
        return new LinkConfig(minDelayMs, maxDelayMs, 0.0);
    }

    /** The same delays with the given loss probability. */
    public LinkConfig withDropProbability(double probability) {
        return new LinkConfig(minDelayMs, maxDelayMs, probability);
    }
}
