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

package dev.insync.replication.testkit.simulation;

import dev.insync.replication.log.StorageOperation;
import dev.insync.replication.log.checkpoint.CleanShutdownFile;
import dev.insync.replication.testkit.cluster.BrokerHandle;
import dev.insync.replication.testkit.cluster.BrokerStatus;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Failed disks, in seeds with two log directories per broker: the disk under one directory of a
 * running broker fails at its next operation of a drawn kind (write, flush or directory fsync),
 * through that directory's fault hook ({@code BrokerHandle.failDisk}). The library must take the
 * directory offline (contract §9), answer KAFKA_STORAGE_ERROR for its partitions, report them in
 * its heartbeats so that the controller moves their leadership away, and keep serving from the
 * other directory. At most one disk per broker is failed at a time, so a broker never loses all its
 * directories.
 *
 * <p>The fault heals with the broker's next start, whatever causes it (a process fault's restart
 * heals it too). Otherwise, after a drawn time, the disk is swapped: the broker is stopped (kill -9:
 * the failed directory cannot write its clean-shutdown marker anyway), its directory comes back
 * either empty (a new disk, {@link #REPLACE_EMPTY_PROBABILITY}) or with the files it had (a
 * transient fault, recovered at open, LOG-7), and it restarts at once. While a broker's disk is
 * failed, {@link FaultContext#eligible} does not count it, and failing a disk obeys the same guard
 * as taking a broker down, so that without unclean election every partition keeps another eligible
 * ISR member; since the disk fails at its next operation, not at once, disks fail only under min ISR
 * 2 or more, where an ISR that shrinks to the failing broker meanwhile leaves the others in its ELR.
 *
 * <p>History kinds: {@code disk} (brokers [b]; params {@code logDir}, {@code at}: the operation kind),
 * {@code disk-offline} (the directory went offline; params {@code logDir}, {@code operation},
 * {@code file}, {@code partitions}: the broker's offline replicas), {@code disk-replace} (the broker
 * stopped for a new disk; params {@code logDir}, {@code empty}) followed by {@code restart}.
 */
final class DiskFaults implements FaultAction {

    private static final long MIN_FAILED_MS = 2_000;
    private static final long MAX_FAILED_MS = 15_000;
    /** Probability that the swapped disk comes back empty rather than with its old files. */
    static final double REPLACE_EMPTY_PROBABILITY = 0.5;
    /** How long healing waits for the guard before swapping a disk anyway. */
    private static final long HEAL_GUARD_BOUND_MS = 30_000;
    private static final long HEAL_STEP_MS = 200;

    /** One failed disk: its broker's incarnation, its directory, when it is swapped, whether its failure is recorded. */
    private static final class Failed {
        final int incarnation;
        final int logDir;
        final long replaceAtMs;
        boolean offlineRecorded;

        Failed(int incarnation, int logDir, long replaceAtMs) {
            this.incarnation = incarnation;
            this.logDir = logDir;
            this.replaceAtMs = replaceAtMs;
        }
    }

    private final FaultContext ctx;
    private final int logDirs;
    private final Map<Integer, Failed> failed = new TreeMap<>();

    DiskFaults(FaultContext ctx, int logDirs) {
        this.ctx = ctx;
        this.logDirs = logDirs;
    }

    @Override
    public void step(FaultKind kind) {
        if (kind != FaultKind.DISK) {
            throw new IllegalArgumentException("Not a disk fault: " + kind);
        }
        if (logDirs < 2) {
            return; // not scheduled then (FaultScheduler): a failed disk would stop the broker
        }
        if (!ctx.unclean && ctx.minIsr.getAsInt() < 2) {
            // With min ISR 1 the ISR may shrink to this broker alone before its disk fails, leaving no
            // ELR member behind it (KIP-966 keeps one only below min ISR): no eligible replica would be
            // left, which Kafka does not promise to survive. The simulation keeps min ISR at 2 or more
            // while a disk is failed.
            return;
        }
        List<Integer> candidates = new ArrayList<>(ctx.crashable(false));
        candidates.removeIf(b -> failed.containsKey(b) || !ctx.mayLoseData(b));
        if (candidates.isEmpty()) {
            return;
        }
        int b = ctx.pick(candidates);
        int logDir = ctx.random.nextInt(logDirs);
        StorageOperation.Kind at = StorageOperation.Kind.values()[ctx.random.nextInt(StorageOperation.Kind.values().length)];
        long failedMs = ctx.random.nextLong(MIN_FAILED_MS, MAX_FAILED_MS + 1);
        BrokerHandle broker = ctx.cluster.broker(b);
        broker.failDisk(logDir, at);
        failed.put(b, new Failed(broker.incarnation(), logDir, ctx.cluster.nowMs() + failedMs));
        ctx.diskFailed.add(b);
        ctx.lostData(b);
        ctx.record("disk", List.of(b), Map.of("logDir", (long) logDir, "at", at.name()));
    }

    @Override
    public void onTick() {
        for (Map.Entry<Integer, Failed> e : List.copyOf(failed.entrySet())) {
            int b = e.getKey();
            Failed f = e.getValue();
            recordOffline(b, f);
            if (healedByRestart(b, f)) {
                continue;
            }
            if (f.replaceAtMs <= ctx.cluster.nowMs() && ctx.cluster.broker(b).status() == BrokerStatus.RUNNING
                    && ctx.shuttingDown() != b && (ctx.unclean || ctx.othersEligibleInEveryIsr(b))) {
                replace(b, f);
            }
        }
    }

    /** Writes {@code disk-offline} once, when the failed operation has happened. */
    private void recordOffline(int b, Failed f) {
        if (f.offlineRecorded) {
            return;
        }
        BrokerHandle broker = ctx.cluster.broker(b);
        if (broker.incarnation() != f.incarnation) {
            return; // restarted before the disk was touched: it failed nothing
        }
        Optional<StorageOperation> op = broker.diskFailure(f.logDir);
        if (op.isEmpty()) {
            return;
        }
        f.offlineRecorded = true;
        Path dir = broker.logDirs().get(f.logDir);
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("logDir", (long) f.logDir);
        params.put("operation", op.get().kind().name());
        params.put("file", dir.relativize(op.get().file()).toString());
        params.put("partitions", broker.replicaManager().map(rm -> rm.offlineReplicas().stream()
                .map(tp -> (long) tp.partition()).toList()).orElse(List.of()));
        // LDR-5: the directory fsync right after the clean-shutdown marker's rename failed: the marker
        // is in place and true (everything before it succeeded; the disk failed nothing earlier).
        Optional<StorageOperation> before = broker.diskOperationBeforeFailure(f.logDir);
        params.put("markerInPlace", op.get().kind() == StorageOperation.Kind.DIRECTORY_FSYNC && before.isPresent()
                && before.get().kind() == StorageOperation.Kind.WRITE
                && before.get().file().getFileName().toString().equals(CleanShutdownFile.FILE_NAME));
        ctx.record("disk-offline", List.of(b), params);
    }

    /** A restart since the disk failed (a process fault's) brought a healthy disk. */
    private boolean healedByRestart(int b, Failed f) {
        if (ctx.cluster.broker(b).incarnation() == f.incarnation) {
            return false;
        }
        failed.remove(b);
        ctx.diskFailed.remove(b);
        return true;
    }

    private void replace(int b, Failed f) {
        boolean empty = ctx.random.nextDouble() < REPLACE_EMPTY_PROBABILITY;
        ctx.cluster.kill(b);
        ctx.record("disk-replace", List.of(b), Map.of("logDir", (long) f.logDir, "empty", empty));
        if (empty) {
            ctx.cluster.replaceDisk(b, f.logDir);
        }
        ctx.cluster.restart(b);
        ctx.record("restart", List.of(b), Map.of());
        failed.remove(b);
        ctx.diskFailed.remove(b);
    }

    @Override
    public void heal() {
        for (Map.Entry<Integer, Failed> e : List.copyOf(failed.entrySet())) {
            int b = e.getKey();
            Failed f = e.getValue();
            recordOffline(b, f);
            if (healedByRestart(b, f)) {
                continue;
            }
            // The other faults are undone: wait (bounded) until another ISR member can carry every partition.
            long deadline = ctx.cluster.nowMs() + HEAL_GUARD_BOUND_MS;
            while (!ctx.unclean && !ctx.othersEligibleInEveryIsr(b) && ctx.cluster.nowMs() < deadline) {
                ctx.cluster.runFor(Math.min(HEAL_STEP_MS, deadline - ctx.cluster.nowMs()));
                ctx.recorder.sample();
            }
            replace(b, f);
        }
    }
}
