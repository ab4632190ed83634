package dev.insync.replication.testkit.simulation;

import dev.insync.replication.testkit.cluster.BrokerStatus;
import dev.insync.replication.testkit.cluster.BitFlip;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One bit flipped in the segment files of a broker that is down after a kill or a power loss, in a
 * batch above its recovery point (see {@link BitFlip}): recovery must find it by the batch's CRC
 * and cut the log there when the broker restarts. Nothing to undo at heal time.
 *
 * <p>History kind {@code bitflip}: brokers [b], params {@code partition}, {@code segment},
 * {@code position}, {@code bit}, {@code batchBaseOffset}.
 */
final class BitFlipFaults implements FaultAction {

    private final FaultContext ctx;

    BitFlipFaults(FaultContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void step(FaultKind kind) {
        List<Integer> crashed = new ArrayList<>(ctx.crashed);
        crashed.removeIf(b -> ctx.cluster.broker(b).status() != BrokerStatus.DOWN || !ctx.mayLoseData(b));
        if (crashed.isEmpty()) {
            return;
        }
        int b = ctx.pick(crashed);
        Optional<BitFlip.Flipped> flipped = ctx.cluster.flipBitAboveRecoveryPoint(b, ctx.random);
        if (flipped.isEmpty()) {
            return;
        }
        ctx.lostData(b);
        BitFlip.Flipped f = flipped.get();
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("partition", (long) f.topicPartition().partition());
        params.put("segment", f.segment());
        params.put("position", f.position());
        params.put("bit", (long) f.bit());
        params.put("batchBaseOffset", f.batchBaseOffset());
        ctx.record("bitflip", List.of(b), params);
    }

    @Override
    public void heal() {
        // A flipped bit is found and cut off at the broker's restart; there is nothing to undo.
    }
}
