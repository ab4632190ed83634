package dev.insync.replication.testkit.simulation;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The kinds of fault a {@link Simulation} may inject, as named on the command line. */
public enum FaultKind {
    /** SIGSTOP and SIGCONT of one broker. */
    PAUSE,
    /** kill -9 of one broker (files survive), later a restart. */
    KILL,
    /** Power loss of one broker (unflushed bytes lost, last write torn), later a restart. */
    POWER,
    /** Network cuts: two-way between two brokers, one-way, or a broker isolated; later a heal. */
    PARTITION,
    /** Controlled shutdown of one broker (LDR-4), later a restart. */
    SHUTDOWN,
    /** Slow links: every link's delay drawn from a wider range for a while. */
    DELAY;

    /** Every kind. */
    public static Set<FaultKind> all() {
        return EnumSet.allOf(FaultKind.class);
    }

    /**
     * Parses a comma-separated list such as {@code pause,kill,partition}; an empty string means no faults.
     *
     * @throws IllegalArgumentException naming an unknown kind
     */
    public static Set<FaultKind> parse(String csv) {
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        for (String part : csv.split(",")) {
            String name = part.trim();
            if (name.isEmpty()) {
                continue;
            }
            try {
                kinds.add(valueOf(name.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Unknown fault kind '" + name + "'; known: pause, kill, power, "
                        + "partition, shutdown, delay", e);
            }
        }
        return kinds;
    }

    /** The command-line name. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
