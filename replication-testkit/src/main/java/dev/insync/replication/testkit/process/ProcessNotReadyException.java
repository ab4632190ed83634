package dev.insync.replication.testkit.process;

import java.io.IOException;

/**
 * A started process did not become ready: it exited first, or its readiness bound ran out. The
 * message names the process, its PID, and ends with the last lines of its captured output.
 */
public final class ProcessNotReadyException extends IOException {

    private static final long serialVersionUID = 1L;

    ProcessNotReadyException(String message) {
        super(message);
    }
}
