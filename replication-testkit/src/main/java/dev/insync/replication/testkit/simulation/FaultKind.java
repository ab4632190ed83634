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
    /**
     * Network cuts: two-way between two brokers, one-way, a broker isolated from everyone, or a
     * broker cut from the controller only; later a heal.
     */
    PARTITION,
    /** Controlled shutdown of one broker (LDR-4), later a restart. */
    SHUTDOWN,
    /** Slow links: every link's delay drawn from a wider range for a while. */
    DELAY,
    /**
     * Message loss: every link, or every link of one broker, drops requests and responses with some
     * probability for a while (the caller's timeout notices).
     */
    LOSS,
    /** A broker's wall clock steps forward or back (its monotonic clock does not). */
    CLOCK,
    /** One bit flipped in a crashed broker's segment files above its recovery point, found at recovery. */
    BITFLIP,
    /**
     * The disk under one log directory of a running broker fails at its next write, flush or
     * directory fsync (seeds with two log directories per broker): the directory goes offline, the
     * broker keeps the other; healed by the broker's next restart, on a replaced disk.
     */
    DISK,
    /**
     * The controller process: the active controller dies (its in-memory state and liveness tracking
     * gone, its metadata log kept) and a new incarnation starts after a delay, rebuilds from the log
     * and gives every broker a full session timeout (CTL-3); or it is paused for a short while.
     */
    CONTROLLER;

    /** Every kind. */
    public static Set<FaultKind> all() {
        return EnumSet.allOf(FaultKind.class);
    }

    /**
     * Parses a comma-separated list such as {@code pause,kill,partition}, or {@code none} for no faults.
     *
     * @throws IllegalArgumentException naming an unknown kind or an empty element (so {@code ",,,"}
     *                                  does not silently mean "no faults")
     */
    public static Set<FaultKind> parse(String csv) {
        if ("none".equalsIgnoreCase(csv.trim())) {
            return EnumSet.noneOf(FaultKind.class);
        }
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        String[] parts = csv.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            String name = parts[i].trim();
            if (name.isEmpty()) {
                throw new IllegalArgumentException("Empty fault kind at position " + (i + 1) + " of '" + csv
                        + "'; known: " + known() + ", or 'none' for no faults");
            }
            try {
                kinds.add(valueOf(name.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Unknown fault kind '" + name + "'; known: " + known()
                        + ", or 'none' for no faults", e);
            }
        }
        return kinds;
    }

    /** The command-line names of every kind, comma-separated. */
    public static String known() {
        StringBuilder sb = new StringBuilder();
        for (FaultKind k : values()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(k.cliName());
        }
        return sb.toString();
    }

    /** The command-line name. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
