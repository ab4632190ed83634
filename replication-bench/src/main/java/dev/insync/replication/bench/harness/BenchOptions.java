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

import java.nio.file.Path;
import java.util.Set;

/**
 * What one bench run measures and for how long.
 *
 * @param outDir          where results.txt, results.json and the charts go
 * @param repeats         how many times each measurement runs (medians are reported)
 * @param warmupMs        unmeasured load before each throughput window
 * @param measureMs       length of each throughput window
 * @param latencySends    acks=all sends recorded for the latency distribution (after a warm-up of a tenth)
 * @param window          produce requests in flight for throughput
 * @param batchBytes      largest produce request
 * @param valueBytes      bytes of each record's value
 * @param scalePartitions partitions of the scale measurement (0 skips it)
 * @param idleMs          idle window of the scale measurement's CPU reading
 * @param sections        which sections run: throughput, latency, baselines, fsync, peers, scale, simulation, controller,
 *                        processes
 * @param jitQuietTimeoutMs how much longer than {@code warmupMs} a throughput warm-up may go on until the JIT
 *                        compilers of the measured system are quiet ({@link JitWarmup}); 0 for fixed warm-ups
 */
public record BenchOptions(Path outDir, int repeats, long warmupMs, long measureMs, int latencySends, int window,
                           int batchBytes, int valueBytes, int scalePartitions, long idleMs, Set<String> sections,
                           long jitQuietTimeoutMs) {

    /** Every section. */
    public static final Set<String> ALL_SECTIONS =
            Set.of("throughput", "latency", "baselines", "fsync", "peers", "scale", "simulation", "controller", "processes",
                    "process-scale");

    /**
     * The settings: 3 repeats, 100-byte records, 1,000 requests of up to 16 KiB in flight, warm-ups
     * up to 60 s longer while the JIT compilers are busy.
     */
    public static BenchOptions defaults(Path outDir) {
        return new BenchOptions(outDir, 3, 2_000, 5_000, 20_000, 1_000, 16 * 1024, 100, 3_000, 30_000, ALL_SECTIONS,
                60_000);
    }

    /** Whether {@code section} runs. */
    public boolean runs(String section) {
        return sections.contains(section);
    }
}
