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

package dev.insync.replication.testkit.simulation;

import dev.insync.replication.testkit.cluster.BrokerStatus;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Wall-clock steps of brokers (NTP stepping the clock, or an operator setting it): forward or back
 * by 1 to 20 s, each broker's offset kept within ±{@value #MAX_OFFSET_MS} ms, reset to 0 at heal
 * time. Only {@code Time.milliseconds()} of the broker moves; its monotonic clock and timers do not,
 * so anything in the library that measures a timeout on the wall clock shows up as a broken
 * deadline (INV-5) or a stuck partition, while Kafka's own wall-clock uses (ISR lag, retention by
 * time, record timestamps) merely misjudge for a while.
 *
 * <p>History kind {@code clock}: brokers [b], params {@code deltaMs} (the step) and {@code offsetMs}
 * (b's wall clock minus the cluster's after it).
 */
final class ClockFaults implements FaultAction {

    static final long MAX_OFFSET_MS = 30_000;
    private static final long MIN_STEP_MS = 1_000;
    private static final long MAX_STEP_MS = 20_000;

    private final FaultContext ctx;

    ClockFaults(FaultContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void step(FaultKind kind) {
        List<Integer> running = ctx.brokersIn(BrokerStatus.RUNNING);
        if (running.isEmpty()) {
            return;
        }
        int b = ctx.pick(running);
        long step = ctx.random.nextLong(MIN_STEP_MS, MAX_STEP_MS + 1) * (ctx.random.nextBoolean() ? 1 : -1);
        long offset = ctx.cluster.clockOffsetMs(b);
        if (Math.abs(offset + step) > MAX_OFFSET_MS) {
            step = -step;
        }
        jump(b, step);
    }

    private void jump(int broker, long deltaMs) {
        ctx.cluster.jumpClock(broker, deltaMs);
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("deltaMs", deltaMs);
        params.put("offsetMs", ctx.cluster.clockOffsetMs(broker));
        ctx.record("clock", List.of(broker), params);
    }

    @Override
    public void heal() {
        for (int b : ctx.replicas) {
            long offset = ctx.cluster.clockOffsetMs(b);
            if (offset != 0) {
                jump(b, -offset);
            }
        }
    }
}
