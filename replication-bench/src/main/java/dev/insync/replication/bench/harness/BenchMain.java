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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs a bench and writes its report. {@link #main} is the bench's command line ({@link BenchCommand}):
 * the {@code Main-Class} of {@code replication-bench/target/benchmarks.jar}, and what the
 * {@code -Ppeers} build, which adds Apache Ratis, runs from its class path. The bench is its own
 * program: nothing depends on this module (the CLI included), so the library's jars never carry the
 * bench's charting and histogram libraries.
 */
public final class BenchMain {

    /** A machine fact this machine does not expose. */
    private static final String UNKNOWN = "unknown";

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
        machine.put("cpu", cpuModel());
        machine.put("cpuidle", cpuIdle());
        long start = System.nanoTime();
        Measurements m = new BenchSuite(options, processSettings, progress).run();
        machine.put("load_after", loadAverage());
        machine.put("duration", String.format(Locale.ROOT, "%.0f s", (System.nanoTime() - start) / 1e9));
        progress.accept("writing " + options.outDir());
        String text = new BenchReport(m, options, machine).write();
        progress.accept(null);
        return text;
    }

    /** The first {@code model name} of /proc/cpuinfo: runs on machines of one kind differ by it. */
    private static String cpuModel() {
        String line = firstLine(Path.of("/proc/cpuinfo"), l -> l.startsWith("model name"));
        return line.equals(UNKNOWN) ? line : line.substring(line.indexOf(':') + 1).trim();
    }

    /**
     * The idle driver and, in a guest with {@code haltpoll}, how long an idle vCPU polls before it
     * halts: with 0 every hand-off to an idle vCPU waits for the host to run it again, which costs
     * tens of microseconds and sets the in-JVM acks=all p50 (docs/performance.md, run 19).
     */
    private static String cpuIdle() {
        Path idle = Path.of("/sys/devices/system/cpu/cpuidle");
        String pollNs = firstLine(Path.of("/sys/module/haltpoll/parameters/guest_halt_poll_ns"), l -> true);
        return "driver " + firstLine(idle.resolve("current_driver"), l -> true)
                + ", governor " + firstLine(idle.resolve("current_governor"), l -> true)
                + (pollNs.equals(UNKNOWN) ? "" : ", guest_halt_poll_ns " + pollNs);
    }

    /** The first line of {@code file} that {@code wanted} accepts, trimmed, or {@link #UNKNOWN}. */
    private static String firstLine(Path file, Predicate<String> wanted) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.filter(wanted).findFirst().map(String::trim).orElse(UNKNOWN);
        } catch (IOException | UncheckedIOException e) {
            return UNKNOWN;
        }
    }

    private static String loadAverage() {
        return String.format(Locale.ROOT, "%.2f (1-minute)", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
