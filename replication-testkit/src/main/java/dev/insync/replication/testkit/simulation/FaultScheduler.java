package dev.insync.replication.testkit.simulation;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides when a fault is attempted and of which kind, from the fault schedule's own random stream
 * ({@link SeedStreams.Component#FAULTS}), and hands it to the {@link FaultAction} of its family. A
 * new kind of fault is a {@link FaultKind} constant plus a {@link FaultAction} registered in the
 * constructor's table; the guards it must respect are in {@link FaultContext}.
 */
final class FaultScheduler {

    /** Probability of a fault attempt per workload tick. */
    static final double FAULT_PROBABILITY = 0.12;
    /**
     * Relative weights of the kinds: pauses and cuts twice as often as the rest, since a paused or
     * cut-off leader that does not know it is deposed is where the riskiest reads and writes happen.
     */
    private static final Map<FaultKind, Integer> WEIGHTS = Map.of(FaultKind.PAUSE, 2, FaultKind.PARTITION, 2);

    private final FaultContext ctx;
    /** Enabled kinds, each as often as its weight, in kind order. */
    private final List<FaultKind> enabled;
    private final Map<FaultKind, FaultAction> actions = new EnumMap<>(FaultKind.class);
    /**
     * Families in heal order: the network first (so that restarted brokers can reach the controller),
     * the controller (so that they can register), clocks, processes, then failed disks (swapped once
     * every partition has another eligible member).
     */
    private final Set<FaultAction> healOrder = new LinkedHashSet<>();

    FaultScheduler(FaultContext ctx, Set<FaultKind> kinds, long shutdownBoundMs, int logDirs) {
        this.ctx = ctx;
        NetworkFaults network = new NetworkFaults(ctx);
        ClockFaults clocks = new ClockFaults(ctx);
        ProcessFaults processes = new ProcessFaults(ctx, shutdownBoundMs);
        BitFlipFaults bitFlips = new BitFlipFaults(ctx);
        DiskFaults disks = new DiskFaults(ctx, logDirs);
        register(network, FaultKind.PARTITION, FaultKind.DELAY, FaultKind.LOSS);
        register(new ControllerFaults(ctx), FaultKind.CONTROLLER);
        register(clocks, FaultKind.CLOCK);
        register(processes, FaultKind.PAUSE, FaultKind.KILL, FaultKind.POWER, FaultKind.SHUTDOWN);
        register(bitFlips, FaultKind.BITFLIP);
        register(disks, FaultKind.DISK);
        List<FaultKind> sorted = new ArrayList<>(kinds);
        if (logDirs < 2) {
            // A failed disk needs a second directory to keep the broker up; with one, KILL covers it.
            // Left out of the schedule, so the seeds with one directory keep the draws they had.
            sorted.remove(FaultKind.DISK);
        }
        sorted.sort(null);
        List<FaultKind> weighted = new ArrayList<>();
        for (FaultKind k : sorted) {
            if (!actions.containsKey(k)) {
                throw new IllegalArgumentException("No fault action for " + k);
            }
            for (int i = 0; i < WEIGHTS.getOrDefault(k, 1); i++) {
                weighted.add(k);
            }
        }
        this.enabled = List.copyOf(weighted);
    }

    private void register(FaultAction action, FaultKind... kinds) {
        for (FaultKind k : kinds) {
            actions.put(k, action);
        }
        healOrder.add(action);
    }

    /** One workload tick: maybe one fault attempt. */
    void tick() {
        for (FaultAction action : healOrder) {
            action.onTick();
        }
        if (enabled.isEmpty() || ctx.random.nextDouble() >= FAULT_PROBABILITY) {
            return;
        }
        FaultKind kind = enabled.get(ctx.random.nextInt(enabled.size()));
        actions.get(kind).step(kind);
        ctx.pollShutdown();
    }

    /** Undoes every fault still in force. */
    void healAll() {
        for (FaultAction action : healOrder) {
            action.heal();
        }
    }
}
