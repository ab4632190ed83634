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
 * The seed's three experiments (contract §10 SCN-1, SCN-2, SCN-3) as reusable code: each
 * {@link dev.insync.replication.testkit.scenario.Scenario} builds an
 * {@link dev.insync.replication.testkit.cluster.InMemoryCluster}, drives it through the seed's steps in
 * virtual time, prints the lines the seed prints (describe lines, HWs, the brokers' log lines,
 * checkpoint files, what a consumer sees) and returns a
 * {@link dev.insync.replication.testkit.scenario.ScenarioResult}: the printed trace, a JSON-able map of
 * the numbers, and the list of expectations that failed (empty on success).
 *
 * <p>Every wait is a bounded wait for a condition in virtual time, and every time printed comes from
 * the virtual clock, so the scenarios work for any {@code replica.lag.time.max.ms} and seed.
 *
 * <p>The brokers' log lines ({@code Shrinking ISR ...}, {@code ISR updated to ...},
 * {@code Truncating partition ...}) are rebuilt by {@link dev.insync.replication.testkit.scenario.LogLineObserver}
 * from the brokers' state, sampled between every two simulated events, in the same words the
 * brokers log through slf4j; the trace labels them as rebuilt.
 */
package dev.insync.replication.testkit.scenario;
