package dev.insync.replication.testkit.simulation;

/**
 * One family of faults the {@link FaultScheduler} drives (process faults, network faults, clock
 * jumps, corruption, ...). A new family (slow disks, say) is a new implementation
 * registered for its {@link FaultKind}s in {@link FaultScheduler}; the guards that keep a run inside
 * Kafka's promises live in {@link FaultContext}, shared by every family.
 */
interface FaultAction {

    /**
     * Injects one fault of {@code kind}, or undoes one of this family that is in force, if the
     * guards allow it now; otherwise does nothing. Records what it did with
     * {@link FaultContext#record}.
     */
    void step(FaultKind kind);

    /** Called on every workload tick: undoes faults that were injected for a set time and are due. */
    default void onTick() {
    }

    /** Undoes every fault of this family still in force (the heal-and-quiesce phase), recording each. */
    void heal();
}
