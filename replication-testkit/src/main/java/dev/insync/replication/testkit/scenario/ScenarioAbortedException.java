package dev.insync.replication.testkit.scenario;

/**
 * A step of a scenario could not go on (a future did not complete, a condition never held within
 * its bound). The scenario records the message as a failed expectation and stops.
 */
final class ScenarioAbortedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ScenarioAbortedException(String message) {
        super(message);
    }
}
