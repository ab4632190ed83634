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
