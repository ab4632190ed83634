package dev.insync.replication.controller.api;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;

import java.util.OptionalInt;

/**
 * CTL-4: the request reached a controller node that is not the active controller (or stopped being
 * it before the request's records were committed). Retriable: send it again, to
 * {@link #activeController()} if known. A transport carries it as {@code NOT_CONTROLLER} with the hint.
 */
public final class NotControllerException extends ApiException {

    private final transient OptionalInt activeController;

    /** @param activeController the active controller's node id, if this node knows it */
    public NotControllerException(int nodeId, OptionalInt activeController) {
        super(Errors.NOT_CONTROLLER, "Controller node " + nodeId + " is not the active controller"
                + (activeController.isPresent() ? "; node " + activeController.getAsInt() + " is" : "; none is known"));
        this.activeController = activeController;
    }

    /** The node id of the active controller, if known. */
    public OptionalInt activeController() {
        return activeController;
    }
}
