package dev.insync.replication.testkit.sim;

/**
 * A task of the simulation threw. Carries the node, the task label and the virtual time so that
 * the failing event can be found again by re-running the same seed.
 */
public final class SimulationTaskException extends RuntimeException {

    /** Wraps {@code cause} thrown by the task {@code label} of {@code node} at {@code timeMs}. */
    public SimulationTaskException(NodeId node, String label, long timeMs, Throwable cause) {
        super("Task '" + label + "' of " + node + " failed at virtual time " + timeMs + " ms: " + cause, cause);
    }
}
