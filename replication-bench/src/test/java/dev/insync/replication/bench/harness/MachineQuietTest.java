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
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The machine-quiet wait over a {@code /proc/stat} the test rewrites at each window. */
class MachineQuietTest {

    @TempDir
    Path dir;

    private static String stat(long busy, long idle) {
        // user nice system idle iowait irq softirq steal guest guest_nice
        return "cpu  " + busy + " 0 0 " + idle + " 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\n";
    }

    /** Each sleep moves /proc/stat on by one window of (busy, idle) ticks from {@code windows}. */
    private MachineQuiet machine(Path file, Deque<long[]> windows) throws IOException {
        long[] sum = {0, 0};
        Files.writeString(file, stat(0, 0));
        return new MachineQuiet(file, ms -> {
            long[] w = windows.isEmpty() ? new long[] {0, 200} : windows.poll();
            sum[0] += w[0];
            sum[1] += w[1];
            try {
                Files.writeString(file, stat(sum[0], sum[1]));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @Test
    void waitsForTwoQuietWindowsInARow() throws Exception {
        Path file = dir.resolve("stat");
        Deque<long[]> windows = new ArrayDeque<>();
        windows.add(new long[] {150, 50});  // 75 % busy
        windows.add(new long[] {5, 195});   // 2.5 %: quiet
        windows.add(new long[] {40, 160});  // 20 %: the count starts again
        windows.add(new long[] {10, 190});  // 5 %
        windows.add(new long[] {0, 200});   // 0 %

        assertThat(machine(file, windows).await(60_000)).isEqualTo(5_000);
    }

    @Test
    void aBusyMachineEndsTheWaitAtTheBound() throws Exception {
        Path file = dir.resolve("stat");
        Deque<long[]> windows = new ArrayDeque<>();
        for (int i = 0; i < 10; i++) {
            windows.add(new long[] {100, 100});
        }

        assertThat(machine(file, windows).await(3_000)).isEqualTo(3_000);
    }

    @Test
    void withoutProcStatNothingIsWaited() throws Exception {
        assertThat(new MachineQuiet(dir.resolve("missing"), ms -> {
            throw new AssertionError("slept");
        }).await(60_000)).isEqualTo(-1);
    }

    @Test
    void theCpuLineIsParsedAndAnythingElseRefused() {
        long[] bt = MachineQuiet.busyAndTotal("cpu  10 2 3 100 5 1 1 0 7 0\nintr 1\n");
        assertThat(bt).containsExactly(17, 122);
        assertThatThrownBy(() -> MachineQuiet.busyAndTotal("intr 1 2 3\n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("intr");
    }
}
