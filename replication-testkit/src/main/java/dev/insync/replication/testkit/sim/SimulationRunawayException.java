package dev.insync.replication.testkit.sim;

/**
 * A simulation run exceeded one of its bounds (events per run, events at one virtual instant,
 * pending events): almost always a livelock or a task that reschedules itself without delay.
 * The message names the bound, the virtual time and the most frequent recent event labels.
 */
public final class SimulationRunawayException extends RuntimeException {

    /** Creates the exception with a diagnostic message. */
    public SimulationRunawayException(String message) {
        super(message);
    }
}
