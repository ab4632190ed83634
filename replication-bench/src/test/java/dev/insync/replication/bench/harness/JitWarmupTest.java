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

package dev.insync.replication.bench.harness;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The warm-up's decisions on a manual clock, with compiler and system CPU the test moves by hand. */
class JitWarmupTest {

    /** A clock, compiler and server CPU readings the test moves by hand. */
    private static final class Readings {
        final AtomicLong nowMs = new AtomicLong();
        double compiler;
        double server;

        JitWarmup watch(long minMs, long timeoutMs) {
            return new JitWarmup(() -> compiler, () -> server, () -> nowMs.get() * 1_000_000, minMs, timeoutMs);
        }

        void advance(long ms, double compilerSeconds, double serverSeconds) {
            nowMs.addAndGet(ms);
            compiler += compilerSeconds;
            server += serverSeconds;
        }
    }

    @Test
    void theWarmUpLastsItsMinimumAndEndsAfterTwoWindowsInARowWhereTheCompilersUseUnderOnePercent() {
        Readings r = new Readings();
        JitWarmup w = r.watch(2_000, 60_000);

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
        assertThat(w.settled()).as("one quiet window").isFalse();
        r.advance(1_000, 0.3, 1.5);
        assertThat(w.settled()).as("a burst after it starts the count again").isFalse();
        r.advance(1_000, 0.01, 1.5);
        assertThat(w.settled()).as("one quiet window").isFalse();
        r.advance(1_000, 0.0, 1.5);

        assertThat(w.settled()).isTrue();
        assertThat(w.quiet()).isTrue();
        assertThat(w.lastShare()).isZero();
        assertThat(w.durationMs()).isEqualTo(8_000);
        r.advance(1_000, 1.0, 1.0);
        assertThat(w.settled()).as("once over, stays over").isTrue();
        assertThat(w.durationMs()).as("the warm-up's length, not the time since").isEqualTo(8_000);
    }

    @Test
    void aCompilerThatNeverQuietensEndsTheWarmUpAtTheBound() {
        Readings r = new Readings();
        JitWarmup w = r.watch(1_000, 3_000);

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
        JitWarmup unreadable = r.watch(1_000, 60_000);
        Readings f = new Readings();
        JitWarmup fixed = f.watch(1_000, 0);

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
    void thisJvmsWarmUpReadsItsOwnCompiler() {
        assertThat(java.lang.management.ManagementFactory.getCompilationMXBean().isCompilationTimeMonitoringSupported())
                .as("HotSpot times its compiler").isTrue();
        JitWarmup w = JitWarmup.thisJvm(0, 60_000);

        assertThat(w.settled()).as("a reading: a window starts instead of the fixed warm-up ending").isFalse();
        assertThat(JitWarmup.thisJvm(0, 0).settled()).as("no time to wait: fixed").isTrue();
    }

    @Test
    void negativeBoundsAreRefused() {
        Readings r = new Readings();
        assertThatThrownBy(() -> r.watch(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> r.watch(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
