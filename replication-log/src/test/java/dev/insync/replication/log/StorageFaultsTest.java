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

package dev.insync.replication.log;

import dev.insync.replication.log.checkpoint.CleanShutdownFile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.insync.replication.log.LogFixtures.batch;
import static dev.insync.replication.log.LogFixtures.readOffsets;
import static dev.insync.replication.log.LogFixtures.readValues;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * §9 and the disk-fault seam ({@link StorageFaults}): a write, flush or directory fsync that fails
 * takes the log directory offline: every log in it answers KAFKA_STORAGE_ERROR, nothing more is
 * written or served, no clean-shutdown marker is left, and the next open recovers a contiguous log
 * holding every record whose append succeeded (LOG-7). Swept over "the Nth operation of each kind
 * fails" for every N the workload reaches.
 */
class StorageFaultsTest {

    private static final TopicPartition T0 = new TopicPartition("faults", 0);
    private static final TopicPartition T1 = new TopicPartition("faults", 1);
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(400).withSegmentIndexBytes(1024)
            .withIndexIntervalBytes(100);

    @TempDir
    Path root;
    private int trial;

    /** What the workload did before it stopped: the logs it opened, the values of each successful append. */
    private static final class Outcome {
        final Map<TopicPartition, Log> logs = new LinkedHashMap<>();
        final Map<TopicPartition, List<String>> acked = new LinkedHashMap<>();
        final Map<TopicPartition, List<String>> inFlight = new LinkedHashMap<>();
        /** Whether the failure came while closing cleanly, when the logs may already be closed. */
        boolean closing;
        ApiException failure;
    }

    /**
     * Appends to two logs (rolling segments, three epochs), flushes, checkpoints and closes cleanly,
     * stopping at the first KAFKA_STORAGE_ERROR.
     */
    private static Outcome workload(LogDirectory dir) {
        Outcome out = new Outcome();
        try {
            for (TopicPartition tp : List.of(T0, T1)) {
                out.acked.put(tp, new ArrayList<>());
                out.inFlight.put(tp, List.of());
                out.logs.put(tp, dir.getOrCreateLog(tp, CONFIG));
            }
            for (int i = 0; i < 24; i++) {
                TopicPartition tp = i % 2 == 0 ? T0 : T1;
                Log log = out.logs.get(tp);
                List<String> values = new ArrayList<>();
                int count = 1 + i % 3;
                for (int r = 0; r < count; r++) {
                    values.add("w" + i + "-" + r);
                }
                out.inFlight.put(tp, values);
                log.appendAsLeader(batch("w" + i, count), i / 8);
                out.inFlight.put(tp, List.of());
                out.acked.get(tp).addAll(values);
                if (i % 5 == 4) {
                    log.flush();
                }
                if (i % 7 == 6) {
                    log.updateHighWatermark(log.logEndOffset());
                    dir.checkpointHighWatermarks();
                    dir.checkpointRecoveryPointsAndLogStartOffsets();
                }
            }
            out.closing = true;
            dir.closeCleanly(5);
        } catch (ApiException e) {
            assertThat(e.error()).as("only storage errors are injected: %s", e).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            out.failure = e;
        }
        return out;
    }

    private LogDirectory open(Path data, StorageFaults faults) {
        return LogDirectory.open(data, CONFIG, () -> 0L, FileSync.withoutFsync().withFaults(faults));
    }

    private static void assertStorageError(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR));
    }

    /** Runs the workload with the nth operation of {@code kind} failing; returns false if it never got that far. */
    private boolean failNth(StorageOperation.Kind kind, int n) {
        Path data = root.resolve("trial-" + trial++);
        CountingFaults faults = CountingFaults.failing(kind, n);
        LogDirectory dir = open(data, faults);
        Outcome out = workload(dir);
        if (faults.failed() == null) {
            assertThat(out.failure).isNull();
            return false;
        }
        String what = kind + " #" + n + " (" + faults.failed().file().getFileName() + ")";
        assertThat(out.failure).as("the failed %s surfaces as KAFKA_STORAGE_ERROR", what).isNotNull();
        assertThat(dir.isOffline()).as("%s takes the directory offline", what).isTrue();
        assertThat(dir.offlineReason()).hasValueSatisfying(r -> assertThat(r).contains("injected"));
        for (Log log : out.logs.values()) {
            if (!out.closing) {
                // (Closing cleanly, the logs may have been closed before the failing marker write.)
                assertThat(log.isOffline()).as("%s: %s is offline", what, log.topicPartition()).isTrue();
            }
            assertStorageError(() -> log.read(0, 1000, Long.MAX_VALUE));
            assertStorageError(() -> log.appendAsLeader(batch("late", 1), 9));
            assertStorageError(log::flush);
        }
        assertStorageError(() -> dir.getOrCreateLog(new TopicPartition("faults", 9), CONFIG));
        assertStorageError(dir::checkpointHighWatermarks);
        assertStorageError(() -> dir.closeCleanly(5));
        dir.close();
        List<StorageOperation> ops = faults.operations();
        boolean markerRenamed = ops.size() >= 2 && ops.get(ops.size() - 2).file().getFileName().toString()
                .equals(CleanShutdownFile.FILE_NAME);
        if (!markerRenamed) {
            // (Only the marker's own directory fsync may fail after it is in place: everything before
            // it was durable, so what it says is true.)
            assertThat(data.resolve(CleanShutdownFile.FILE_NAME)).as("%s: no clean-shutdown marker", what).doesNotExist();
        }

        // The next open (the disk works again) recovers a contiguous log of every acknowledged record,
        // plus at most the whole batch that was being appended.
        try (LogDirectory reopened = open(data, StorageFaults.NONE)) {
            if (!markerRenamed) {
                assertThat(reopened.previousCleanShutdownBrokerEpoch()).isEmpty();
            }
            for (Map.Entry<TopicPartition, Log> e : reopened.logs().entrySet()) {
                Log log = e.getValue();
                List<String> acked = out.acked.getOrDefault(e.getKey(), List.of());
                List<String> values = readValues(log, log.logStartOffset());
                assertThat(readOffsets(log, 0)).as("%s: contiguous offsets of %s", what, e.getKey())
                        .containsExactlyElementsOf(java.util.stream.LongStream.range(0, log.logEndOffset()).boxed().toList());
                if (values.size() == acked.size()) {
                    assertThat(values).as("%s: %s", what, e.getKey()).isEqualTo(acked);
                } else {
                    List<String> withInFlight = new ArrayList<>(acked);
                    withInFlight.addAll(out.inFlight.getOrDefault(e.getKey(), List.of()));
                    assertThat(values).as("%s: %s holds the acked records and the whole in-flight batch", what,
                            e.getKey()).isEqualTo(withInFlight);
                }
            }
            assertThat(reopened.logs().keySet()).as("%s: every log whose creation succeeded", what)
                    .containsAll(out.logs.keySet());
            reopened.closeCleanly(6);
        }
        try (LogDirectory again = open(data, StorageFaults.NONE)) {
            for (Log log : again.logs().values()) {
                assertThat(log.recoveryFindings()).as("%s: the recovered files open clean", what).isEmpty();
            }
        }
        return true;
    }

    private void sweep(StorageOperation.Kind kind) {
        CountingFaults counting = CountingFaults.counting();
        LogDirectory dir = open(root.resolve("count-" + kind), counting);
        assertThat(workload(dir).failure).isNull();
        long total = counting.count(kind);
        assertThat(total).as("the workload does %s operations", kind).isGreaterThan(3);
        int failed = 0;
        for (int n = 1; n <= total; n++) {
            if (failNth(kind, n)) {
                failed++;
            }
        }
        assertThat(failed).as("every %s the workload does was failed once", kind).isEqualTo((int) total);
    }

    @Test
    @DisplayName("§9 a failed write (the Nth, for every N) takes the directory offline, KAFKA_STORAGE_ERROR, and recovery cleans up (LOG-7)")
    void failedWriteTakesTheDirectoryOffline() {
        sweep(StorageOperation.Kind.WRITE);
    }

    @Test
    @DisplayName("§9 a failed flush (the Nth, for every N) takes the directory offline, KAFKA_STORAGE_ERROR, and recovery cleans up (LOG-7)")
    void failedFlushTakesTheDirectoryOffline() {
        sweep(StorageOperation.Kind.FLUSH);
    }

    @Test
    @DisplayName("§9 a failed directory fsync (the Nth, for every N) takes the directory offline, KAFKA_STORAGE_ERROR, and recovery cleans up (LOG-7)")
    void failedDirectoryFsyncTakesTheDirectoryOffline() {
        sweep(StorageOperation.Kind.DIRECTORY_FSYNC);
    }

    @Test
    @DisplayName("§9 a failing directory leaves another directory in the same JVM online")
    void otherDirectoriesStayOnline() {
        LogDirectory failing = open(root.resolve("failing"), op -> {
            if (op.kind() == StorageOperation.Kind.FLUSH && op.file().toString().endsWith(".log")) {
                throw new java.io.IOException("injected: the disk is gone");
            }
        });
        LogDirectory healthy = open(root.resolve("healthy"), StorageFaults.NONE);
        Log bad = failing.getOrCreateLog(T0, CONFIG);
        Log good = healthy.getOrCreateLog(T0, CONFIG);
        bad.appendAsLeader(batch("a", 1), 0);
        good.appendAsLeader(batch("a", 1), 0);
        assertStorageError(bad::flush);
        good.flush();
        assertThat(failing.isOffline()).isTrue();
        assertThat(healthy.isOffline()).isFalse();
        good.appendAsLeader(batch("b", 1), 0);
        assertThat(readValues(good, 0)).containsExactly("a-0", "b-0");
        failing.close();
        healthy.closeCleanly(1);
    }

    @Test
    @DisplayName("§9 a failed write of a standalone log takes that log offline; nothing it wrote before is lost on reopen")
    void standaloneLogGoesOffline() {
        Path dir = root.resolve("alone").resolve(T0.toString());
        CountingFaults faults = CountingFaults.counting();
        try (Log log = Log.open(dir, T0, CONFIG, 0, 0, () -> 0L, FileSync.withoutFsync().withFaults(op -> {
            faults.beforeOperation(op);
            if (op.kind() == StorageOperation.Kind.WRITE && op.file().toString().endsWith(".log")
                    && faults.count(StorageOperation.Kind.WRITE) > 12) {
                throw new java.io.IOException("injected: disk full");
            }
        }))) {
            int appended = 0;
            try {
                for (int i = 0; i < 50; i++) {
                    log.appendAsLeader(batch("s" + i, 1), 0);
                    appended++;
                }
            } catch (ApiException e) {
                assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
                assertThat(e).hasMessageContaining("injected: disk full");
            }
            assertThat(appended).isBetween(1, 49);
            assertThat(log.isOffline()).isTrue();
            assertStorageError(() -> log.read(0, 100, 1));
            int kept = appended;
            log.close();
            try (Log reopened = Log.open(dir, T0, CONFIG, 0, 0, () -> 0L, FileSync.withoutFsync())) {
                assertThat(reopened.logEndOffset()).isEqualTo(kept);
            }
        }
    }
}
