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

package dev.insync.replication.bench.processes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** Reading the compiler threads' CPU from a {@code /proc} laid out in a directory, and the warm-up's decisions on a manual clock. */
class ServerJitTest {

    @TempDir
    Path proc;

    private void thread(long pid, long tid, String comm, long utime, long stime) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(pid + "/task/" + tid));
        // The fields of proc(5) up to stime; comm may hold spaces and parentheses.
        Files.writeString(dir.resolve("stat"), tid + " (" + comm + ") S 1 1 1 0 -1 4194560 100 0 0 0 " + utime + " "
                + stime + " 0 0 20 0 30 0 100 0 0\n");
    }

    @Test
    void compilerCpuIsTheUserAndSystemTimeOfTheC1AndC2ThreadsOfEveryProcess() throws IOException {
        thread(42, 42, "java", 5_000, 500);
        thread(42, 43, "C2 CompilerThre", 150, 50);
        thread(42, 44, "C1 CompilerThre", 10, 0);
        thread(42, 45, "odd) (C2 CompilerThre", 7_000, 0);
        thread(77, 78, "C2 CompilerThre", 40, 0);
        thread(77, 79, "node-1-network-", 9_000, 100);
        ServerJit jit = new ServerJit(proc);
        assertThat(jit.compilerCpuSeconds(List.of(42L, 77L))).as("the first reading is the origin").isZero();

        thread(42, 43, "C2 CompilerThre", 250, 50);
        thread(42, 45, "odd) (C2 CompilerThre", 9_000, 0);
        thread(77, 79, "node-1-network-", 19_000, 100);
        thread(77, 78, "C2 CompilerThre", 45, 5);

        assertThat(jit.compilerCpuSeconds(List.of(42L, 77L))).isCloseTo(1.1, within(1e-9));
        assertThat(jit.compilerCpuSeconds(List.of(42L, 1234L))).as("a process that is not there").isNaN();
        assertThat(jit.compilerCpuSeconds(List.of())).isNaN();
    }

    @Test
    void compilerThreadsThatEndOrBeginDoNotMakeTheTotalFall() throws IOException {
        thread(42, 43, "C2 CompilerThre", 100, 0);
        thread(42, 44, "C2 CompilerThre", 500, 0);
        ServerJit jit = new ServerJit(proc);
        jit.compilerCpuSeconds(List.of(42L));

        // HotSpot ends an idle compiler thread and starts another when compiling picks up again.
        Files.delete(proc.resolve("42/task/44/stat"));
        Files.delete(proc.resolve("42/task/44"));
        thread(42, 46, "C1 CompilerThre", 30, 0);
        thread(42, 43, "C2 CompilerThre", 120, 0);

        assertThat(jit.compilerCpuSeconds(List.of(42L))).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void aMalformedStatLineIsAnErrorNamingTheThread() throws IOException {
        Path dir = Files.createDirectories(proc.resolve("5/task/6"));
        Files.writeString(dir.resolve("stat"), "6 C2 CompilerThread0 S 1\n");

        assertThatThrownBy(() -> new ServerJit(proc).compilerCpuSeconds(List.of(5L)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/proc/6/stat");
    }

    /** A clock, compiler and server CPU readings the test moves by hand. */
    private static final class Readings {
        final AtomicLong nowMs = new AtomicLong();
        double compiler;
        double server;

        ServerJit.Watch watch(long minMs, long timeoutMs) {
            return new ServerJit.Watch(() -> compiler, () -> server, () -> nowMs.get() * 1_000_000, minMs, timeoutMs);
        }

        void advance(long ms, double compilerSeconds, double serverSeconds) {
            nowMs.addAndGet(ms);
            compiler += compilerSeconds;
            server += serverSeconds;
        }
    }

    @Test
    void theWarmUpLastsItsMinimumAndEndsInTheFirstWindowWhereTheCompilersUseUnderOnePercent() {
        Readings r = new Readings();
        ServerJit.Watch w = r.watch(2_000, 60_000);

        r.advance(1_999, 0.5, 1.0);
        assertThat(w.settled()).as("before the minimum").isFalse();
        r.advance(1, 0, 0);
        assertThat(w.settled()).as("the first window starts").isFalse();
        r.advance(999, 0.5, 1.0);
        assertThat(w.settled()).as("window not over").isFalse();
        r.advance(1, 0.3, 0.5);
        assertThat(w.settled()).as("compilers at half of the servers' CPU").isFalse();
        assertThat(w.lastShare()).isCloseTo(0.8 / 1.5, within(1e-9));
        r.advance(1_000, 0.02, 1.5);
        assertThat(w.settled()).as("1.3 %% is not quiet").isFalse();
        r.advance(1_000, 0.01, 1.5);

        assertThat(w.settled()).isTrue();
        assertThat(w.quiet()).isTrue();
        assertThat(w.lastShare()).isCloseTo(0.01 / 1.5, within(1e-9));
        assertThat(w.durationMs()).isEqualTo(5_000);
        r.advance(1_000, 1.0, 1.0);
        assertThat(w.settled()).as("once over, stays over").isTrue();
        assertThat(w.durationMs()).as("the warm-up's length, not the time since").isEqualTo(5_000);
    }

    @Test
    void aCompilerThatNeverQuietensEndsTheWarmUpAtTheBound() {
        Readings r = new Readings();
        ServerJit.Watch w = r.watch(1_000, 3_000);

        for (int i = 0; i < 3; i++) {
            r.advance(1_000, 0.5, 1.0);
            assertThat(w.settled()).isFalse();
        }
        r.advance(1_000, 0.5, 1.0);

        assertThat(w.settled()).isTrue();
        assertThat(w.quiet()).isFalse();
        assertThat(w.durationMs()).isEqualTo(4_000);
    }

    @Test
    void withoutAReadingOrWithoutATimeoutTheWarmUpIsTheFixedOne() {
        Readings r = new Readings();
        r.compiler = Double.NaN;
        ServerJit.Watch unreadable = r.watch(1_000, 60_000);
        Readings f = new Readings();
        ServerJit.Watch fixed = f.watch(1_000, 0);

        assertThat(unreadable.settled()).isFalse();
        r.advance(1_000, 0, 0);
        assertThat(unreadable.settled()).isTrue();
        assertThat(unreadable.quiet()).isFalse();

        assertThat(fixed.settled()).isFalse();
        f.advance(1_000, 0.5, 1.0);
        assertThat(fixed.settled()).as("compiling, but no time to wait for it").isTrue();
        assertThat(fixed.quiet()).isFalse();
    }

    @Test
    void negativeBoundsAreRefused() {
        Readings r = new Readings();
        assertThatThrownBy(() -> r.watch(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> r.watch(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
