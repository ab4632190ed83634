/**
 * Delayed operations and the purgatory that parks them (contract PRO-4, and the waiting part of
 * FET-5): a {@link dev.insync.replication.core.purgatory.DelayedOperationPurgatory} completes
 * operations when someone checks their keys, and a hierarchical timing wheel
 * ({@link dev.insync.replication.core.purgatory.TimingWheelTimer}) expires the rest in O(1) per
 * operation. Nothing here polls or owns a thread: the timer asks the injected
 * {@link dev.insync.replication.core.time.Scheduler} for one wake-up per bucket expiration.
 */
package dev.insync.replication.core.purgatory;
