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

package dev.insync.replication.netty.protocol;

import dev.insync.replication.log.Errors;

import java.util.Objects;

/**
 * A controller node's answer on the wire: the operation's value, or the error its stage failed
 * with (CTL-4's {@code NOT_CONTROLLER} with the active controller's id if the node knows it; an
 * invalid request's {@code INVALID_REQUEST} with its message; a busy controller's
 * {@code REQUEST_TIMED_OUT}). Errors that are values of a successful answer (a heartbeat's
 * {@code STALE_BROKER_EPOCH}, an AlterPartition's per-partition errors) are in the value.
 *
 * @param error              NONE when {@code value} is the answer
 * @param errorMessage       the controller's message for a failure, null with NONE
 * @param activeControllerId with NOT_CONTROLLER, the node the controller named as active; else -1
 * @param value              the answer with NONE, else null
 * @param <T>                the operation's value
 */
public record ControllerReply<T>(Errors error, String errorMessage, int activeControllerId, T value) {

    /** No controller is known. */
    public static final int NO_CONTROLLER = -1;

    /** Validates: a value exactly when the error is NONE. */
    public ControllerReply {
        Objects.requireNonNull(error, "error");
        if (error == Errors.NONE) {
            if (errorMessage != null || activeControllerId != NO_CONTROLLER) {
                throw new IllegalArgumentException("A successful controller reply carries no error message or hint");
            }
        } else if (value != null) {
            throw new IllegalArgumentException("A failed controller reply (" + error + ") carries no value");
        }
        if (activeControllerId < NO_CONTROLLER) {
            throw new IllegalArgumentException("Bad active controller id " + activeControllerId);
        }
    }

    /** A successful answer. */
    public static <T> ControllerReply<T> ok(T value) {
        return new ControllerReply<>(Errors.NONE, null, NO_CONTROLLER, value);
    }

    /** A failed one. */
    public static <T> ControllerReply<T> failed(Errors error, String message, int activeControllerId) {
        if (error == Errors.NONE) {
            throw new IllegalArgumentException("A failed reply needs an error");
        }
        return new ControllerReply<>(error, message, activeControllerId, null);
    }
}
