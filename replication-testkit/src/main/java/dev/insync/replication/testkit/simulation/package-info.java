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

/**
 * The randomized simulation of contract §11: {@link dev.insync.replication.testkit.simulation.Simulation}
 * runs one seed (a random workload and random faults on an in-memory cluster in virtual time, then
 * heal-and-quiesce), {@link dev.insync.replication.testkit.simulation.Recorder} writes down what
 * clients saw as a {@code History} plus brokers' state samples, and the {@code InvariantChecker}
 * decides INV-1..INV-8. The CLI's {@code simulate} command runs ranges of seeds; a failing seed
 * replays exactly.
 */
package dev.insync.replication.testkit.simulation;
