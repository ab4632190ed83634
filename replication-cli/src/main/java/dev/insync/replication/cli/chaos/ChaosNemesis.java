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

package dev.insync.replication.cli.chaos;

import dev.insync.replication.testkit.history.HistoryEvent.Fault;
import dev.insync.replication.testkit.process.ProcessCluster;
import dev.insync.replication.testkit.process.ProcessCluster.Flow;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The seeded fault injector of {@code insync chaos}: one fault at a time, held 1-4 s, then undone,
 * then 0.5-2 s of calm. The choices (kind, node, link, hold times) come from the seed; when they
 * land depends on the wall clock, so two runs of one seed inject the same sequence of faults but
 * the histories differ. At most one broker is down, paused or cut at a time, so with RF 3 and min
 * ISR 2 acks=all stays possible and no unclean election is ever needed. Every fault and its undoing
 * is a {@code fault} line of the history.
 */
public final class ChaosNemesis {

    /** The fault families {@code --faults} names. */
    public enum Kind {
        /** kill -9 of a broker, restarted when the fault ends. */
        KILL,
        /** SIGSTOP of a broker, SIGCONT when the fault ends. */
        PAUSE,
        /** A broker cut by its proxies: from everything, from one peer (one way or both), or from the controllers. */
        PARTITION,
        /**
         * The active controller killed (restarted after), paused, cut from every broker, or (with a quorum of
         * three or more) cut from every other controller while the brokers still reach it.
         */
        CONTROLLER;

        static Set<Kind> parse(String list) {
            Set<Kind> kinds = java.util.EnumSet.noneOf(Kind.class);
            for (String s : list.split(",")) {
                String name = s.trim();
                if (name.isEmpty()) {
                    continue;
                }
                try {
                    kinds.add(valueOf(name.toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("Unknown fault kind '" + name + "': use kill, pause, partition, controller");
                }
            }
            return kinds;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final ProcessCluster cluster;
    private final ChaosRecorder recorder;
    private final SplittableRandom random;
    private final List<Kind> kinds;
    private final Map<Kind, Integer> injected = new EnumMap<>(Kind.class);
    /** What undoes the fault in force, or null. */
    private Runnable undo;

    ChaosNemesis(ProcessCluster cluster, ChaosRecorder recorder, long seed, Set<Kind> kinds) {
        this.cluster = cluster;
        this.recorder = recorder;
        this.random = new SplittableRandom(seed);
        // In declaration order, whatever the set's iteration order: an immutable set's (Set.copyOf, as
        // ChaosSettings makes) changes from one JVM to the next, and with it every choice the seed makes.
        EnumSet<Kind> ordered = EnumSet.noneOf(Kind.class);
        ordered.addAll(kinds);
        this.kinds = new ArrayList<>(ordered);
    }

    /** The fault kinds the seed chooses from, in the order it indexes them. */
    List<Kind> kinds() {
        return List.copyOf(kinds);
    }

    /** Faults injected so far, by kind. */
    Map<String, Integer> injected() {
        Map<String, Integer> m = new LinkedHashMap<>();
        injected.forEach((k, n) -> m.put(k.label(), n));
        return m;
    }

    /**
     * Injects and undoes faults until {@code deadlineMs} (recorder time) or interruption; leaves no
     * fault in force.
     */
    void run(long deadlineMs) throws Exception {
        try {
            while (!kinds.isEmpty() && recorder.now() < deadlineMs && !Thread.currentThread().isInterrupted()) {
                sleepUntil(Math.min(deadlineMs, recorder.now() + 500 + random.nextInt(1500)));
                if (recorder.now() >= deadlineMs) {
                    break;
                }
                inject(kinds.get(random.nextInt(kinds.size())));
                sleepUntil(Math.min(deadlineMs, recorder.now() + 1000 + random.nextInt(3000)));
                undoFault();
            }
        } finally {
            undoFault();
        }
    }

    /** Waits until recorder time {@code targetMs}: the fault schedule runs on the wall clock by design. */
    private void sleepUntil(long targetMs) throws InterruptedException {
        for (long left = targetMs - recorder.now(); left > 0; left = targetMs - recorder.now()) {
            Thread.sleep(left);
        }
    }

    private void inject(Kind kind) throws Exception {
        List<Integer> brokers = cluster.brokerIds();
        int broker = brokers.get(random.nextInt(brokers.size()));
        List<Integer> controllers = cluster.controllerIds();
        int controller = controllers.get(random.nextInt(controllers.size()));
        injected.merge(kind, 1, Integer::sum);
        switch (kind) {
            case KILL -> {
                fault("kill", List.of(broker), Map.of());
                cluster.kill(broker);
                undo = () -> restart(broker);
            }
            case PAUSE -> {
                fault("pause", List.of(broker), Map.of());
                cluster.pause(broker);
                undo = () -> {
                    cluster.resume(broker);
                    fault("resume", List.of(broker), Map.of());
                };
            }
            case PARTITION -> partition(broker, brokers);
            case CONTROLLER -> {
                // The active controller when its output names one, else any.
                java.util.OptionalInt active = cluster.activeController();
                int target = active.orElse(controller);
                Map<String, Object> params = Map.of("active", active.isPresent());
                int shape = random.nextInt(controllers.size() > 1 ? 4 : 3);
                if (shape == 0) {
                    fault("controller-kill", List.of(target), params);
                    cluster.kill(target);
                    undo = () -> restart(target);
                } else if (shape == 1) {
                    fault("controller-pause", List.of(target), params);
                    cluster.pause(target);
                    undo = () -> {
                        cluster.resume(target);
                        fault("controller-resume", List.of(target), Map.of());
                    };
                } else if (shape == 2) {
                    fault("controller-cut", List.of(target), params);
                    for (int b : brokers) {
                        cluster.blackhole(b, target, Flow.BOTH_WAYS);
                    }
                    undo = this::heal;
                } else {
                    // CTL-4: the quorum elects another; the brokers, which still reach this one, must find it.
                    fault("controller-quorum-cut", List.of(target), params);
                    for (int c : controllers) {
                        if (c != target) {
                            cluster.blackhole(target, c, Flow.BOTH_WAYS);
                        }
                    }
                    undo = this::heal;
                }
            }
            default -> throw new IllegalStateException("no fault for " + kind);
        }
    }

    private void partition(int broker, List<Integer> brokers) {
        int shape = random.nextInt(4);
        List<Integer> peers = brokers.stream().filter(b -> b != broker).toList();
        int peer = peers.get(random.nextInt(peers.size()));
        switch (shape) {
            case 0 -> {
                fault("isolate", List.of(broker), Map.of());
                cluster.isolate(broker);
            }
            case 1 -> {
                fault("cut", List.of(broker, peer), Map.of("oneWay", false));
                cluster.blackhole(broker, peer, Flow.BOTH_WAYS);
            }
            case 2 -> {
                fault("cut", List.of(broker, peer), Map.of("oneWay", true));
                cluster.blackhole(broker, peer, Flow.ONE_WAY);
            }
            default -> {
                fault("cut-controller", List.of(broker), Map.of());
                for (int c : cluster.controllerIds()) {
                    cluster.blackhole(broker, c, Flow.BOTH_WAYS);
                }
            }
        }
        undo = this::heal;
    }

    /** Undoes a network fault: every link healed, and the connections that lost bytes reset. */
    private void heal() {
        int reset = cluster.heal();
        fault("heal", List.of(), Map.of("resetConnections", reset));
    }

    private void restart(int id) {
        try {
            fault("restart", List.of(id), Map.of());
            cluster.restart(id);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot restart node " + id + ": " + e.getMessage(), e);
        }
    }

    private void undoFault() {
        Runnable u = undo;
        undo = null;
        if (u != null) {
            u.run();
        }
    }

    private void fault(String kind, List<Integer> nodes, Map<String, Object> params) {
        recorder.add(t -> new Fault(t, kind, nodes, params));
    }
}
