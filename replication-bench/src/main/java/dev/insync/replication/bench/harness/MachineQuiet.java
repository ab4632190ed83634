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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Waits until the whole machine is nearly idle, read from Linux's {@code /proc/stat}.
 *
 * <p>After a process section the next repeat's in-JVM sections ran while the killed servers' memory
 * was still being returned and their files written back: the hand-off baseline of repeats 2 and 3
 * read 82-86 µs against 5.26 µs in repeat 1 (side-by-side run 6). So a repeat that follows a process
 * section first waits for {@link #QUIET_WINDOWS} windows of {@link #WINDOW_MS} in a row with the
 * machine's CPUs under {@link #QUIET_BUSY_SHARE} busy, bounded.
 */
public final class MachineQuiet {

    static final long WINDOW_MS = 1_000;
    /** Busy share of all CPUs (user, system, interrupts, steal: everything but idle and I/O wait) that counts as quiet. */
    static final double QUIET_BUSY_SHARE = 0.10;
    static final int QUIET_WINDOWS = 2;

    /** Sleeps for a number of milliseconds (a test's clock moves instead). */
    interface Sleeper {
        void sleep(long ms) throws InterruptedException;
    }

    private final Path stat;
    private final Sleeper sleeper;

    /** Reading {@code /proc/stat}. */
    public MachineQuiet() {
        this(Path.of("/proc/stat"), Thread::sleep);
    }

    MachineQuiet(Path stat, Sleeper sleeper) {
        this.stat = stat;
        this.sleeper = sleeper;
    }

    /**
     * Returns once the machine was quiet for {@link #QUIET_WINDOWS} windows in a row, or after
     * {@code timeoutMs}: the milliseconds waited (counted in windows), -1 where {@code /proc/stat}
     * cannot be read (nothing waited).
     */
    public long await(long timeoutMs) throws InterruptedException {
        long[] before = read();
        if (before == null) {
            return -1;
        }
        long waitedMs = 0;
        int quiet = 0;
        while (quiet < QUIET_WINDOWS && waitedMs < timeoutMs) {
            sleeper.sleep(WINDOW_MS);
            waitedMs += WINDOW_MS;
            long[] now = read();
            if (now == null) {
                return waitedMs;
            }
            long total = now[1] - before[1];
            double busy = total <= 0 ? 0 : (now[0] - before[0]) / (double) total;
            quiet = busy < QUIET_BUSY_SHARE ? quiet + 1 : 0;
            before = now;
        }
        return waitedMs;
    }

    /** {busy, total} clock ticks of all CPUs so far, or null if not readable. */
    private long[] read() {
        try {
            return busyAndTotal(Files.readString(stat, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * {busy, total} ticks from {@code /proc/stat}'s first line
     * ({@code cpu user nice system idle iowait irq softirq steal ...}): busy is all but idle and iowait.
     */
    static long[] busyAndTotal(String procStat) {
        String first = procStat.lines().findFirst().orElse("");
        String[] f = first.trim().split("\\s+");
        if (f.length < 6 || !f[0].equals("cpu")) {
            throw new IllegalArgumentException("Not /proc/stat's cpu line: " + first);
        }
        long total = 0;
        // Fields 1..8 (user nice system idle iowait irq softirq steal); guest times are inside user already.
        for (int i = 1; i < Math.min(f.length, 9); i++) {
            total += Long.parseLong(f[i]);
        }
        long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
        return new long[] {total - idle, total};
    }
}
