package dev.insync.replication.testkit.simulation;

import dev.insync.replication.testkit.cluster.BrokerStatus;

import java.util.List;
import java.util.Map;

/**
 * Faults of broker processes: pause/resume (SIGSTOP/SIGCONT), kill -9, power loss, controlled
 * shutdown, and restarts of down brokers. At most all brokers but one are not running at once;
 * taking one down obeys {@link FaultContext#crashable}. A down broker is not always restarted at
 * the next chance, so two can be down at once (overlapping faults).
 *
 * <p>Half the pauses are short blips (0.5 to 5 s, like a long GC pause): shorter than the session
 * timeout, so the paused broker stays leader, and the requests that clients gave up on meanwhile are
 * answered late when it resumes.
 *
 * <p>History kinds: {@code pause} (params {@code blipMs} for a blip, resumed by itself then),
 * {@code resume}, {@code kill}, {@code power}, {@code shutdown}, {@code shutdown-done}, {@code restart},
 * each with the one broker.
 */
final class ProcessFaults implements FaultAction {

    /** Probability that a crash attempt restarts a down broker rather than taking another one down. */
    private static final double RESTART_PROBABILITY = 0.6;
    private static final double BLIP_PROBABILITY = 0.5;
    private static final long MIN_BLIP_MS = 500;
    private static final long MAX_BLIP_MS = 5_000;

    private final FaultContext ctx;
    private final long shutdownBoundMs;
    /** Blips: broker -> virtual time at which it resumes by itself. */
    private final Map<Integer, Long> resumeAtMs = new java.util.TreeMap<>();

    ProcessFaults(FaultContext ctx, long shutdownBoundMs) {
        this.ctx = ctx;
        this.shutdownBoundMs = shutdownBoundMs;
    }

    @Override
    public void step(FaultKind kind) {
        switch (kind) {
            case PAUSE -> pauseOrResume();
            case KILL, POWER, SHUTDOWN -> crashOrRestart(kind);
            default -> throw new IllegalArgumentException("Not a process fault: " + kind);
        }
    }

    private void pauseOrResume() {
        List<Integer> paused = ctx.brokersIn(BrokerStatus.PAUSED);
        if (!paused.isEmpty() && (ctx.random.nextBoolean() || !ctx.mayStopAnother())) {
            resume(ctx.pick(paused));
            return;
        }
        List<Integer> running = ctx.brokersIn(BrokerStatus.RUNNING);
        if (ctx.mayStopAnother() && !running.isEmpty()) {
            int b = ctx.pick(running);
            ctx.cluster.pause(b);
            if (ctx.random.nextDouble() < BLIP_PROBABILITY) {
                long blipMs = ctx.random.nextLong(MIN_BLIP_MS, MAX_BLIP_MS + 1);
                resumeAtMs.put(b, ctx.cluster.nowMs() + blipMs);
                ctx.record("pause", List.of(b), Map.of("blipMs", blipMs));
            } else {
                ctx.record("pause", List.of(b), Map.of());
            }
        }
    }

    private void resume(int b) {
        resumeAtMs.remove(b);
        ctx.cluster.resume(b);
        ctx.record("resume", List.of(b), Map.of());
    }

    @Override
    public void onTick() {
        for (Map.Entry<Integer, Long> e : List.copyOf(resumeAtMs.entrySet())) {
            if (e.getValue() <= ctx.cluster.nowMs() && ctx.cluster.broker(e.getKey()).status() == BrokerStatus.PAUSED) {
                resume(e.getKey());
            }
        }
    }

    private void crashOrRestart(FaultKind kind) {
        if (ctx.shuttingDown() >= 0) {
            return;
        }
        List<Integer> down = ctx.brokersIn(BrokerStatus.DOWN);
        if (!down.isEmpty() && (!ctx.mayStopAnother() || ctx.random.nextDouble() < RESTART_PROBABILITY)) {
            restart(ctx.pick(down));
            return;
        }
        if (!ctx.mayStopAnother()) {
            return;
        }
        switch (kind) {
            case KILL -> {
                List<Integer> alive = ctx.crashable(true);
                if (!alive.isEmpty()) {
                    int b = ctx.pick(alive);
                    ctx.cluster.kill(b);
                    ctx.crashed.add(b);
                    ctx.record("kill", List.of(b), Map.of());
                }
            }
            case POWER -> {
                List<Integer> alive = ctx.crashable(true);
                alive.removeIf(b -> !ctx.mayLoseData(b));
                if (!alive.isEmpty()) {
                    int b = ctx.pick(alive);
                    ctx.cluster.powerLoss(b);
                    ctx.crashed.add(b);
                    ctx.lostData(b);
                    ctx.record("power", List.of(b), Map.of());
                }
            }
            case SHUTDOWN -> {
                List<Integer> running = ctx.crashable(false);
                if (!running.isEmpty()) {
                    ctx.startShutdown(ctx.pick(running));
                }
            }
            default -> throw new IllegalArgumentException("Not a crash fault: " + kind);
        }
    }

    private void restart(int b) {
        ctx.cluster.restart(b);
        ctx.crashed.remove(b);
        ctx.record("restart", List.of(b), Map.of());
    }

    @Override
    public void heal() {
        for (int b : ctx.brokersIn(BrokerStatus.PAUSED)) {
            resume(b);
        }
        ctx.finishShutdown(shutdownBoundMs);
        for (int b : ctx.brokersIn(BrokerStatus.DOWN)) {
            restart(b);
        }
    }
}
