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
 * Running the processes of an in-process cluster: the deterministic simulator ({@link
 * dev.insync.replication.testkit.sim.EventLoop}: one (virtual time, sequence) queue, one seeded
 * random source, node-tagged tasks that pause, resume and die like processes under SIGSTOP,
 * SIGCONT and kill -9) and its real-time counterpart
 * ({@link dev.insync.replication.testkit.sim.RealTimeNodeRuntime}). Both implement
 * {@link dev.insync.replication.testkit.sim.NodeRuntime}; components receive a per-node
 * {@link dev.insync.replication.core.time.Scheduler} view from {@code forNode(nodeId)} and never
 * know which one they run on ("one code path, two ways to run it").
 *
 * <p>Typical use:
 * <pre>{@code
 * EventLoop loop = EventLoop.withSeed(seed);
 * Scheduler broker1 = loop.forNode(NodeId.broker(1));   // give to broker 1's components
 * loop.runFor(12_000);                                   // 12 s of virtual time, instantly
 * loop.pause(NodeId.broker(3));                          // SIGSTOP
 * loop.runUntil(() -> hw() == 18, 30_000);
 * long hash = loop.traceHash();                          // INV-6: equal for equal seeds
 * }</pre>
 */
package dev.insync.replication.testkit.sim;
