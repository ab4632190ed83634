package dev.insync.replication.testkit.simulation;

import dev.insync.replication.testkit.controller.ClusterController;

import java.util.List;
import java.util.Map;

/**
 * Faults of the controller process (CTL-3): it dies (kill -9: its in-memory state, its liveness
 * tracking and the writes it had not committed are gone; the metadata log, the durable part,
 * survives) and a new incarnation starts after a delay, replays the log (snapshot and tail),
 * becomes active and gives every broker a full session timeout before it may fence it; or it is
 * paused (SIGSTOP) for a blip and resumed by itself. While it is down brokers keep serving what they
 * have, cannot register, change an ISR or be fenced, and retry.
 *
 * <p>History kinds (brokers []): {@code controller-kill} (params {@code downMs}: when the new
 * incarnation will start), {@code controller-restart}, {@code controller-pause} ({@code blipMs}),
 * {@code controller-resume}.
 */
final class ControllerFaults implements FaultAction {

    private static final double KILL_PROBABILITY = 0.5;
    /** A new controller process starts 0.5 to 10 s after the old one died: often more than a session timeout. */
    private static final long MIN_DOWN_MS = 500;
    private static final long MAX_DOWN_MS = 10_000;
    private static final long MIN_BLIP_MS = 500;
    private static final long MAX_BLIP_MS = 5_000;

    private final FaultContext ctx;
    /** When the fault in force ends (restart or resume), -1 if none. */
    private long endsAtMs = -1;

    ControllerFaults(FaultContext ctx) {
        this.ctx = ctx;
    }

    private ClusterController controller() {
        return ctx.cluster.controller();
    }

    @Override
    public void step(FaultKind kind) {
        if (kind != FaultKind.CONTROLLER) {
            throw new IllegalArgumentException("Not a controller fault: " + kind);
        }
        if (controller().status() != ClusterController.Status.RUNNING) {
            return; // one controller fault at a time; it ends by itself (onTick)
        }
        if (ctx.random.nextDouble() < KILL_PROBABILITY) {
            long downMs = ctx.random.nextLong(MIN_DOWN_MS, MAX_DOWN_MS + 1);
            ctx.cluster.killController();
            endsAtMs = ctx.cluster.nowMs() + downMs;
            ctx.record("controller-kill", List.of(), Map.of("downMs", downMs));
        } else {
            long blipMs = ctx.random.nextLong(MIN_BLIP_MS, MAX_BLIP_MS + 1);
            ctx.cluster.pauseController();
            endsAtMs = ctx.cluster.nowMs() + blipMs;
            ctx.record("controller-pause", List.of(), Map.of("blipMs", blipMs));
        }
    }

    @Override
    public void onTick() {
        if (endsAtMs >= 0 && ctx.cluster.nowMs() >= endsAtMs) {
            end();
        }
    }

    private void end() {
        endsAtMs = -1;
        switch (controller().status()) {
            case DOWN -> {
                ctx.cluster.restartController();
                ctx.record("controller-restart", List.of(), Map.of());
            }
            case PAUSED -> {
                ctx.cluster.resumeController();
                ctx.record("controller-resume", List.of(), Map.of());
            }
            case RUNNING -> {
            }
        }
    }

    @Override
    public void heal() {
        if (controller().status() != ClusterController.Status.RUNNING) {
            end();
        }
    }
}
