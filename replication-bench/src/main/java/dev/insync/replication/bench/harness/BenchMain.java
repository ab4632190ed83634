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

import dev.insync.replication.bench.processes.ProcessBenchSettings;
import picocli.CommandLine;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Runs a bench and writes its report. {@link #main} is the bench's command line ({@link BenchCommand}):
 * the {@code Main-Class} of {@code replication-bench/target/benchmarks.jar}, and what the
 * {@code -Ppeers} build, which adds Apache Ratis, runs from its class path. The bench is its own
 * program: nothing depends on this module (the CLI included), so the library's jars never carry the
 * bench's charting and histogram libraries.
 */
public final class BenchMain {

    private BenchMain() {
    }

    /** Runs {@link BenchCommand} with {@code args} and exits with its exit code (2 for a usage error). */
    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchCommand()).execute(args));
    }

    /** Runs the bench, writes results.txt, results.json and the charts, and returns the text report. */
    public static String run(BenchOptions options, Consumer<String> progress) throws Exception {
        return run(options, ProcessBenchSettings.defaults(), progress);
    }

    /** {@link #run(BenchOptions, Consumer)} with the {@code processes} section's own settings. */
    public static String run(BenchOptions options, ProcessBenchSettings processSettings, Consumer<String> progress)
            throws Exception {
        Map<String, String> machine = new LinkedHashMap<>();
        machine.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
        machine.put("load_before", loadAverage());
        machine.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        machine.put("gc", ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", ")));
        machine.put("max_heap", Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB");
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        long start = System.nanoTime();
        Measurements m = new BenchSuite(options, processSettings, progress).run();
        machine.put("load_after", loadAverage());
        machine.put("duration", String.format(Locale.ROOT, "%.0f s", (System.nanoTime() - start) / 1e9));
        progress.accept("writing " + options.outDir());
        String text = new BenchReport(m, options, machine).write();
        progress.accept(null);
        return text;
    }

    private static String loadAverage() {
        return String.format(Locale.ROOT, "%.2f (1-minute)", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
