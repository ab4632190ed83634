package dev.insync.replication.testkit.history;

import java.util.List;

/**
 * What {@link InvariantChecker} found in one history.
 *
 * @param violations broken invariants, in the order of the invariants' ids
 * @param excused    failures the history itself excuses: a partition that cannot become whole again
 *                   without an unclean election, which the run did not allow (LIVENESS, and INV-3 for
 *                   that partition). Not violations; counted so that a fault scheduler that makes
 *                   them common is noticed.
 */
public record Verdict(List<Violation> violations, List<Violation> excused) {

    /** Copies. */
    public Verdict {
        violations = List.copyOf(violations);
        excused = List.copyOf(excused);
    }

    /** Whether no invariant broke. */
    public boolean clean() {
        return violations.isEmpty();
    }
}
