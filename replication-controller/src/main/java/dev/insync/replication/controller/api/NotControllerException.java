/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

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
