package dev.insync.replication.bench.harness;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Runs a bench and writes its report: the entry point shared by {@code insync bench} and
 * {@code java -cp ... dev.insync.replication.bench.harness.BenchMain <outDir> [repeats] [sections]}
 * (the latter is how the {@code -Ppeers} build, which adds Apache Ratis, is run).
 */
public final class BenchMain {

    private BenchMain() {
    }

    /** Runs with the defaults, optionally fewer repeats or other sections (comma separated). */
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "bench-results");
        BenchOptions defaults = BenchOptions.defaults(out);
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : defaults.repeats();
        java.util.Set<String> sections = args.length > 2 ? java.util.Set.of(args[2].split(",")) : defaults.sections();
        BenchOptions options = new BenchOptions(out, repeats, defaults.warmupMs(), defaults.measureMs(),
                defaults.latencySends(), defaults.window(), defaults.batchBytes(), defaults.valueBytes(),
                defaults.scalePartitions(), defaults.idleMs(), sections);
        System.out.println(run(options, ProgressLine.toStderr()));
    }

    /** Runs the bench, writes results.txt, results.json and the charts, and returns the text report. */
    public static String run(BenchOptions options, Consumer<String> progress) throws Exception {
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
        Measurements m = new BenchSuite(options, progress).run();
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
