package dev.insync.replication.testkit.history;

/**
 * One broken invariant.
 *
 * @param invariant  the contract's rule id, e.g. {@code INV-1}
 * @param t          virtual time it was observed (or -1 for the final state)
 * @param detail     what was expected and what was seen
 */
public record Violation(String invariant, long t, String detail) {

    @Override
    public String toString() {
        return invariant + (t >= 0 ? " at t=" + t + "ms" : " in the final state") + ": " + detail;
    }
}
