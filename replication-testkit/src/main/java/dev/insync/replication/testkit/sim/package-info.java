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
