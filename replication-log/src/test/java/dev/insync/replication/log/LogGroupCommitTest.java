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

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.batch;
import static dev.insync.replication.log.LogFixtures.batchAt;
import static dev.insync.replication.log.LogFixtures.readValues;
import static dev.insync.replication.log.LogFixtures.smallConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** LOG-11 with the owner's group commit: deferred leader flushes and {@link Log#flush(long)}. */
class LogGroupCommitTest {

    @TempDir
    Path tmp;
    private Log log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private Log open(LogConfig config, long recoveryPoint) {
        log = Log.open(tmp.resolve(TP.toString()), TP, config, recoveryPoint, 0, () -> 0L);
        return log;
    }

    @Test
    @DisplayName("LOG-11 with deferred leader flushes an append reports the due flush and leaves the recovery point; flush(upTo) advances it once for all")
    void deferredAppendReportsFlushDue() {
        open(smallConfig().withFlushMessages(1), 0).setLeaderFlushDeferred(true);
        LogAppendInfo first = log.appendAsLeader(batch("a", 3), 0);
        LogAppendInfo second = log.appendAsLeader(batch("b", 2), 0);
        assertThat(first.flushDue()).isTrue();
        assertThat(second.flushDue()).isTrue();
        assertThat(log.recoveryPoint()).as("nothing forced inside the appends").isZero();

        assertThat(log.flush(first.lastOffset() + 1)).as("one flush covers both appends").isEqualTo(5);
        assertThat(log.recoveryPoint()).isEqualTo(5);
        assertThat(log.flush(5)).as("nothing left to flush").isEqualTo(5);

        LogAppendInfo third = log.appendAsLeader(batch("c", 1), 0);
        assertThat(third.flushDue()).as("the counter restarted at the flush").isTrue();
        assertThat(log.recoveryPoint()).isEqualTo(5);
    }

    @Test
    @DisplayName("LOG-11 with deferred leader flushes flush.messages still decides when a flush is due")
    void deferredFlushDueFollowsFlushMessages() {
        open(smallConfig().withFlushMessages(5), 0).setLeaderFlushDeferred(true);
        assertThat(log.appendAsLeader(batch("a", 3), 0).flushDue()).isFalse();
        assertThat(log.appendAsLeader(batch("b", 2), 0).flushDue()).isTrue();
        assertThat(log.recoveryPoint()).isZero();
        log.flush(5);
        assertThat(log.recoveryPoint()).isEqualTo(5);
        assertThat(log.appendAsLeader(batch("c", 4), 0).flushDue()).isFalse();
    }

    @Test
    @DisplayName("LOG-11 without the owner's opt-in a leader append still flushes itself and reports nothing due")
    void defaultFlushesInsideTheAppend() {
        open(smallConfig().withFlushMessages(1), 0);
        assertThat(log.isLeaderFlushDeferred()).isFalse();
        LogAppendInfo info = log.appendAsLeader(batch("a", 2), 0);
        assertThat(info.flushDue()).isFalse();
        assertThat(log.recoveryPoint()).isEqualTo(2);
    }

    @Test
    @DisplayName("LOG-11 follower appends flush in place even when leader flushes are deferred")
    void followerAppendsStaySynchronous() {
        open(smallConfig().withFlushMessages(1), 0).setLeaderFlushDeferred(true);
        LogAppendInfo info = log.appendAsFollower(batchAt(0, 0, "f", 3));
        assertThat(info.flushDue()).isFalse();
        assertThat(log.recoveryPoint()).isEqualTo(3);
    }

    @Test
    @DisplayName("LOG-11 flush(upTo) is capped at the LEO after a truncation and fails like any I/O on a closed log")
    void flushAfterTruncationAndClose() {
        open(smallConfig().withFlushMessages(1), 0).setLeaderFlushDeferred(true);
        log.appendAsLeader(batch("a", 1), 0);
        log.appendAsLeader(batch("b", 1), 0);
        log.truncateTo(1);
        assertThat(log.flush(2)).isEqualTo(1);
        assertThat(log.recoveryPoint()).isEqualTo(1);
        log.close();
        assertThatThrownBy(() -> log.flush(5)).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR));
    }

    @Test
    @DisplayName("LOG-11 a deferred flush survives a reopen at its recovery point; unflushed appends are rescanned")
    void reopenAtDeferredRecoveryPoint() {
        open(smallConfig().withFlushMessages(1).withSegmentBytes(300), 0).setLeaderFlushDeferred(true);
        for (int i = 0; i < 10; i++) {
            log.appendAsLeader(batch("r" + i, 2), 0);
        }
        assertThat(log.segmentBaseOffsets()).as("rolled at least once").hasSizeGreaterThan(1);
        long recoveryPoint = log.flush(20);
        log.appendAsLeader(batch("late", 1), 0);
        log.close();
        open(smallConfig(), recoveryPoint);
        assertThat(recoveryPoint).isEqualTo(20);
        assertThat(log.logEndOffset()).isEqualTo(21);
        assertThat(readValues(log, 0)).hasSize(21).endsWith("late-0");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @DisplayName("LOG-11 LOG-6 flushes outside the append lock never move the recovery point past the LEO, even across truncations")
    void concurrentFlushNeverPassesTheLogEnd() throws Exception {
        open(smallConfig().withFlushMessages(1).withSegmentBytes(2_000), 0).setLeaderFlushDeferred(true);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CompletableFuture<Integer> flusher = CompletableFuture.supplyAsync(() -> {
            int flushes = 0;
            while (!done.get()) {
                log.flush(Long.MAX_VALUE);
                flushes++;
            }
            return flushes;
        });
        try {
            for (int i = 0; i < 2_000 && failure.get() == null; i++) {
                log.appendAsLeader(batch("c" + i, 2), 0);
                if (i % 7 == 6) {
                    log.truncateTo(log.logEndOffset() - 3);
                }
                // Only this thread moves the LEO; a flush that advanced past a truncation shows here.
                long leo = log.logEndOffset();
                long recoveryPoint = log.recoveryPoint();
                if (recoveryPoint > leo) {
                    failure.set(new AssertionError("recovery point " + recoveryPoint + " above the LEO " + leo));
                }
            }
        } finally {
            done.set(true);
        }
        assertThat(flusher.get(30, TimeUnit.SECONDS)).isPositive();
        assertThat(failure.get()).isNull();
        assertThat(log.flush(Long.MAX_VALUE)).isEqualTo(log.logEndOffset());
    }
}
