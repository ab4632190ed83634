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

import dev.insync.replication.testkit.network.LinkConfig;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Faults of the network: cuts, slow links and message loss, each toggled by its attempts and all
 * undone at heal time.
 *
 * <p>History kinds: {@code cut} (brokers [a, b], params {@code oneWay}: false cuts both directions,
 * true only a → b), {@code isolate} ([a]: every link of a, the controller and clients included),
 * {@code cut-controller} ([a]: a ↔ controller only, so clients and other brokers still reach a
 * while the controller fences it), {@code heal} ([]: every cut and isolation removed);
 * {@code slow} ([], {@code minDelayMs}, {@code maxDelayMs}: every link's delay drawn from that
 * range) and {@code fast} ([]: back to 1 ms); {@code loss} ([] for every link or [a] for every link
 * of a, {@code dropProbability}: each request or response is silently lost with it, the caller's
 * timeout notices) and {@code loss-end} ([]).
 */
final class NetworkFaults implements FaultAction {

    private static final double HEAL_PROBABILITY = 0.4;
    private static final long MAX_LINK_DELAY_MS = 60;
    private static final double[] DROP_PROBABILITIES = {0.02, 0.1, 0.3};
    private static final double ALL_LINKS_LOSS_PROBABILITY = 0.4;

    private final FaultContext ctx;
    private boolean cut;
    private long maxDelayMs = LinkConfig.DEFAULT.maxDelayMs();
    private boolean slow;
    private boolean lossy;
    private int lossyBroker = -1;
    private double dropProbability;

    NetworkFaults(FaultContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void step(FaultKind kind) {
        switch (kind) {
            case PARTITION -> cutOrHeal();
            case DELAY -> slowOrFast();
            case LOSS -> lossOrNot();
            default -> throw new IllegalArgumentException("Not a network fault: " + kind);
        }
    }

    private void cutOrHeal() {
        if (cut && ctx.random.nextDouble() < HEAL_PROBABILITY) {
            healCuts();
            return;
        }
        List<Integer> replicas = ctx.replicas;
        int a = ctx.pick(replicas);
        int b = replicas.get((replicas.indexOf(a) + 1 + ctx.random.nextInt(replicas.size() - 1)) % replicas.size());
        switch (ctx.random.nextInt(4)) {
            case 0 -> {
                ctx.cluster.partition(a, b);
                ctx.record("cut", List.of(a, b), Map.of("oneWay", false));
            }
            case 1 -> {
                ctx.cluster.partitionOneWay(a, b);
                ctx.record("cut", List.of(a, b), Map.of("oneWay", true));
            }
            case 2 -> {
                ctx.cluster.isolate(a);
                ctx.cutFromController.add(a);
                ctx.record("isolate", List.of(a), Map.of());
            }
            default -> {
                ctx.cluster.partitionFromController(a);
                ctx.cutFromController.add(a);
                ctx.record("cut-controller", List.of(a), Map.of());
            }
        }
        cut = true;
    }

    private void healCuts() {
        ctx.cluster.heal();
        ctx.cutFromController.clear();
        cut = false;
        ctx.record("heal", List.of(), Map.of());
    }

    private void slowOrFast() {
        if (slow) {
            slow = false;
            maxDelayMs = LinkConfig.DEFAULT.maxDelayMs();
            applyLinks();
            ctx.record("fast", List.of(), Map.of());
        } else {
            slow = true;
            maxDelayMs = 2 + ctx.random.nextLong(MAX_LINK_DELAY_MS);
            applyLinks();
            ctx.record("slow", List.of(), Map.of("minDelayMs", 1L, "maxDelayMs", maxDelayMs));
        }
    }

    private void lossOrNot() {
        if (lossy) {
            endLoss();
            return;
        }
        lossy = true;
        dropProbability = DROP_PROBABILITIES[ctx.random.nextInt(DROP_PROBABILITIES.length)];
        lossyBroker = ctx.random.nextDouble() < ALL_LINKS_LOSS_PROBABILITY ? -1 : ctx.pick(ctx.replicas);
        applyLinks();
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("dropProbability", dropProbability);
        ctx.record("loss", lossyBroker < 0 ? List.of() : List.of(lossyBroker), params);
    }

    private void endLoss() {
        lossy = false;
        lossyBroker = -1;
        dropProbability = 0;
        applyLinks();
        ctx.record("loss-end", List.of(), Map.of());
    }

    /** Sets the links from the current delay and loss. */
    private void applyLinks() {
        long min = LinkConfig.DEFAULT.minDelayMs();
        long max = Math.max(min, maxDelayMs);
        ctx.cluster.resetLinks();
        ctx.cluster.setLinks(new LinkConfig(min, max, lossy && lossyBroker < 0 ? dropProbability : 0.0));
        if (lossy && lossyBroker >= 0) {
            ctx.cluster.setLinksOf(lossyBroker, new LinkConfig(min, max, dropProbability));
        }
    }

    @Override
    public void heal() {
        if (cut) {
            healCuts();
        }
        if (lossy) {
            endLoss();
        }
        if (slow) {
            slowOrFast();
        }
    }
}
