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
