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

package dev.insync.replication.testkit.cluster;

import dev.insync.replication.broker.InsyncBroker;
import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.StorageOperation;
import dev.insync.replication.log.TopicPartition;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One broker of an {@link InMemoryCluster}, as a test sees it ({@code cluster.broker(id)}): its
 * status, its data directories, the live objects of the running incarnation, and the faults a
 * process suffers. The same handle stays valid across restarts; the live objects are those of the
 * incarnation running when asked, and empty while the broker is down (a restart makes new ones,
 * as a new process would).
 *
 * <p>Running your own code on the broker: {@link #replicaManager()} is the broker's real
 * {@code ReplicaManager} (call {@code produce}, {@code fetch}, inspect partitions), and
 * {@link #scheduler()} gives executors and timers that belong to this incarnation, so a task
 * submitted there is held while the broker is paused and dropped when it dies, like the
 * broker's own. On a simulated cluster, run such calls inside a task of that scheduler or between
 * {@link InMemoryCluster#runFor} steps, never from another thread.
 */
public final class BrokerHandle {

    private final ClusterBroker broker;

    BrokerHandle(ClusterBroker broker) {
        this.broker = broker;
    }

    /** The broker id. */
    public int id() {
        return broker.id();
    }

    /** Running, paused or down. */
    public BrokerStatus status() {
        return broker.status();
    }

    /** How many times this broker has started (a restart adds one); 0 before its first start. */
    public int incarnation() {
        return broker.incarnation();
    }

    /** Its log directories (Kafka's {@code log.dirs}), the first being {@link #dataDir()}; they outlive the process. */
    public List<Path> logDirs() {
        return broker.logDirs();
    }

    /** Its first log directory (where the directory-level checkpoint files of a one-directory broker are). */
    public Path dataDir() {
        return broker.dataDir();
    }

    /**
     * The running incarnation's assembly (replica manager, lifecycle, metadata follower and view,
     * log directories): the same {@code InsyncBroker} production runs; empty while down.
     */
    public Optional<InsyncBroker> insyncBroker() {
        return broker.insyncBroker();
    }

    /** The running incarnation's replica manager; empty while down. */
    public Optional<ReplicaManager> replicaManager() {
        return broker.replicaManager();
    }

    /** The running incarnation's partition object of {@code tp}, if it hosts it. */
    public Optional<Partition> partition(TopicPartition tp) {
        return broker.partition(tp);
    }

    /** The running incarnation's log of {@code tp}, in whichever of its directories holds it. */
    public Optional<Log> log(TopicPartition tp) {
        return broker.log(tp);
    }

    /** The running incarnation's registration, heartbeats and broker epoch; empty while down. */
    public Optional<BrokerLifecycleManager> lifecycle() {
        return broker.lifecycle();
    }

    /** The running incarnation's metrics (gauges, ISR shrink/expand counts); empty while down. */
    public Optional<InMemoryReplicationMetrics> metrics() {
        return broker.metrics();
    }

    /**
     * The running (or paused) incarnation's clock, timers and serial executors: code run there runs
     * as part of this broker (held while it is paused, dropped when it dies). Empty while down.
     */
    public Optional<Scheduler> scheduler() {
        return broker.scheduler();
    }

    /** SIGSTOP: the broker handles nothing and its timers freeze; connections stay open, messages queue. */
    public void pause() {
        broker.pause();
    }

    /** SIGCONT: the broker runs what queued up, late. */
    public void resume() {
        broker.resume();
    }

    /** kill -9: in-memory state is gone, files stay. */
    public void kill() {
        broker.kill();
    }

    /** Machine crash: like kill, and unflushed bytes are lost, the last write possibly torn. */
    public void powerLoss() {
        broker.powerLoss();
    }

    /** Starts a stopped broker again: a new broker epoch, recovery from its directories. */
    public void restart() {
        broker.start();
    }

    /**
     * The disk under log directory {@code logDir} (an index into {@link #logDirs()}) fails: its next
     * operation of {@code kind} and every operation after it end in an I/O error, so the directory
     * goes offline (contract §9): its partitions answer KAFKA_STORAGE_ERROR, the broker reports them
     * to the controller in its heartbeats, which moves their leadership away, and the other
     * directories keep serving. The broker's next start brings a working disk (see
     * {@link #replaceDisk}). The broker must be running or paused.
     */
    public void failDisk(int logDir, StorageOperation.Kind kind) {
        broker.failDisk(logDir, kind);
    }

    /**
     * The first operation the disk under log directory {@code logDir} failed, in the running (or,
     * while down, the last) incarnation; empty while it has failed none.
     */
    public Optional<StorageOperation> diskFailure(int logDir) {
        return broker.diskFailure(logDir);
    }

    /**
     * The last operation the disk under log directory {@code logDir} ran successfully before its
     * first failure ({@link #diskFailure}); empty while it has failed none.
     */
    public Optional<StorageOperation> diskOperationBeforeFailure(int logDir) {
        return broker.diskOperationBeforeFailure(logDir);
    }

    /**
     * Swaps the disk under log directory {@code logDir} of a down broker for an empty one: its files
     * are deleted. Without this call a restarted broker finds the failed disk's files as they were
     * (recovered at open, LOG-7).
     */
    public void replaceDisk(int logDir) {
        broker.replaceDisk(logDir);
    }

    /**
     * Controlled shutdown (LDR-4). The returned future completes, as time runs, once leadership has
     * moved away and the broker closed cleanly.
     */
    public CompletableFuture<Void> controlledShutdown() {
        return broker.controlledShutdown();
    }

    @Override
    public String toString() {
        return "Broker " + id() + " (" + status() + ", incarnation " + incarnation() + ")";
    }
}
