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

package dev.insync.replication.testkit.history;

import dev.insync.replication.log.epoch.EpochEntry;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One line of a simulation history ({@code <seed>.jsonl}, format in {@code docs/testkit-simulation.md}):
 * the run's settings and configuration, what clients invoked and observed, every fault as injected,
 * the brokers' and the controller's sampled state, the end of the faults, and each broker's final
 * log. The file is self-contained: {@link InvariantChecker} decides every invariant of contract §11
 * from these lines alone.
 */
public sealed interface HistoryEvent {

    /** This event as one JSON object, keys in the documented order. */
    Map<String, Object> toJson();

    /** Virtual time in ms, or -1 for events without one ({@code final}). */
    long t();

    /** The run's settings, first line: informational (the checker reads {@link Config} instead). */
    record Settings(long t, long seed, Map<String, Object> values) implements HistoryEvent {
        /** Immutable copy, keys in order. */
        public Settings {
            values = normalised(values);
        }

        @Override
        public Map<String, Object> toJson() {
            Map<String, Object> m = obj("t", t, "type", "settings", "seed", seed);
            m.putAll(values);
            return m;
        }
    }

    /**
     * The configuration in force from {@code t} on: min ISR (conservatively: lowered at once, raised
     * once every running broker applies it), the replicas, whether unclean leader election is
     * enabled, and how many partitions the topic has. {@code replicas} are every partition's replicas
     * unless {@code assignment} is given: then partition {@code p}'s replicas are
     * {@code assignment.get(p)} (a topic placed on some of more brokers than its replication factor),
     * and {@code replicas} are every broker that holds any.
     */
    record Config(long t, int minIsr, List<Integer> replicas, boolean unclean, int partitions,
                  List<List<Integer>> assignment) implements HistoryEvent {
        /** Immutable copies; an assignment names every partition. */
        public Config {
            replicas = List.copyOf(replicas);
            assignment = assignment.stream().map(List::copyOf).toList();
            if (!assignment.isEmpty() && assignment.size() != partitions) {
                throw new IllegalArgumentException("An assignment of " + assignment.size() + " partitions for a topic of "
                        + partitions);
            }
        }

        /** Every partition on the same {@code replicas}. */
        public Config(long t, int minIsr, List<Integer> replicas, boolean unclean, int partitions) {
            this(t, minIsr, replicas, unclean, partitions, List.of());
        }

        /** A one-partition configuration. */
        public Config(long t, int minIsr, List<Integer> replicas, boolean unclean) {
            this(t, minIsr, replicas, unclean, 1);
        }

        /** The replicas of {@code partition}. */
        public List<Integer> replicasOf(int partition) {
            return assignment.isEmpty() ? replicas : assignment.get(partition);
        }

        @Override
        public Map<String, Object> toJson() {
            Map<String, Object> m = obj("t", t, "type", "config", "minIsr", minIsr, "replicas", replicas, "unclean", unclean,
                    "partitions", partitions);
            if (!assignment.isEmpty()) {
                m.put("assignment", assignment);
            }
            return m;
        }
    }

    /**
     * A produce call was made: {@code value} is unique per call (long values as a digest, see
     * {@link HistoryValues}); the broker may wait {@code timeoutMs} for acks=all, and the client
     * gives up {@code deadlineMs} after the call (INV-5's bound).
     */
    record ProduceInvoke(long t, long id, String client, int partition, String acks, String value, long timeoutMs,
                         long deadlineMs) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "produce-invoke", "id", id, "client", client, "partition", partition,
                    "acks", acks, "value", value, "timeoutMs", timeoutMs, "deadlineMs", deadlineMs);
        }
    }

    /** A produce call succeeded at {@code offset}, written in leader epoch {@code epoch}. */
    record ProduceOk(long t, long id, long offset, int epoch) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "produce-ok", "id", id, "offset", offset, "epoch", epoch);
        }
    }

    /** A produce call failed with a wire error name (e.g. NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT). */
    record ProduceFail(long t, long id, String error) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "produce-fail", "id", id, "error", error);
        }
    }

    /** A consumer fetched from {@code broker} (-1: no leader known) at {@code position}. */
    record PollInvoke(long t, long id, String client, int partition, long position, int broker, long timeoutMs)
            implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "poll-invoke", "id", id, "client", client, "partition", partition,
                    "position", position, "broker", broker, "timeoutMs", timeoutMs);
        }
    }

    /**
     * How a poll ended: {@code outcome} is {@code NONE}, an error name or {@code TIMEOUT} (the
     * client gave up; a late answer is discarded), {@code records} the number of {@link Consume}
     * lines it produced, {@code next} the client's position afterwards.
     */
    record PollDone(long t, long id, String outcome, int records, long next) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "poll-done", "id", id, "outcome", outcome, "records", records, "next", next);
        }
    }

    /** Poll {@code poll} gave the consumer {@code value} at {@code offset} (below the HW of the broker it read from). */
    record Consume(long t, long poll, String client, int partition, long offset, String value) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "consume", "poll", poll, "client", client, "partition", partition,
                    "offset", offset, "value", value);
        }
    }

    /** A fault injected or undone, with its parameters (see the format documentation per kind). */
    record Fault(long t, String kind, List<Integer> brokers, Map<String, Object> params) implements HistoryEvent {
        /** Immutable copies. */
        public Fault {
            brokers = List.copyOf(brokers);
            params = normalised(params);
        }

        /** A fault without parameters. */
        public Fault(long t, String kind, List<Integer> brokers) {
            this(t, kind, brokers, Map.of());
        }

        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "fault", "kind", kind, "brokers", brokers, "params", params);
        }
    }

    /**
     * What one broker believed about one partition at {@code t}. Written when it differs from the
     * broker's previous sample of that partition, so a broker's state at any sampling instant is
     * its latest sample; the samples of one instant are consecutive lines.
     *
     * @param incarnation how many times the broker has started
     * @param status      {@code running}, {@code paused}, {@code down} or {@code absent} (no state for the
     *                    partition); for the last two the rest is false/-1/empty
     * @param isr         the ISR it uses for the HW: the maximal ISR (ISR-4) for a leader, empty otherwise
     * @param epochs      its leader-epoch cache as [epoch, startOffset] pairs
     */
    record Sample(long t, int broker, int partition, int incarnation, String status, boolean leader, int leaderEpoch,
                  List<Integer> isr, long hw, long leo, long logStart, List<EpochStart> epochs) implements HistoryEvent {
        /** Immutable copies. */
        public Sample {
            isr = List.copyOf(isr);
            epochs = List.copyOf(epochs);
        }

        /** A {@link #DOWN} or {@link #ABSENT} sample: no state, as the format has it. */
        public static Sample absence(long t, int broker, int partition, int incarnation, String status) {
            return new Sample(t, broker, partition, incarnation, status, false, -1, List.of(), -1, -1, -1, List.of());
        }

        /** Whether this sample says the same as {@code other}, apart from the time. */
        public boolean sameState(Sample other) {
            return other != null && broker == other.broker && partition == other.partition
                    && incarnation == other.incarnation && status.equals(other.status) && leader == other.leader
                    && leaderEpoch == other.leaderEpoch && hw == other.hw && leo == other.leo
                    && logStart == other.logStart && isr.equals(other.isr) && epochs.equals(other.epochs);
        }

        /** Whether the broker's process is up (running or paused) and holds state for the partition. */
        public boolean up() {
            return RUNNING.equals(status) || PAUSED.equals(status);
        }

        @Override
        public Map<String, Object> toJson() {
            List<Object> pairs = new ArrayList<>(epochs.size());
            for (EpochStart e : epochs) {
                pairs.add(List.of(e.epoch(), e.startOffset()));
            }
            return obj("t", t, "type", "sample", "broker", broker, "partition", partition, "incarnation", incarnation,
                    "status", status, "leader", leader, "leaderEpoch", leaderEpoch, "isr", isr, "hw", hw, "leo", leo,
                    "logStart", logStart, "epochs", pairs);
        }
    }

    /** {@link Sample} status: the broker runs. */
    String RUNNING = "running";
    /** {@link Sample} status: the broker is paused (SIGSTOP); its state is frozen. */
    String PAUSED = "paused";
    /** {@link Sample} status: the broker's process is down. */
    String DOWN = "down";
    /** {@link Sample} status: the broker runs but holds no state for the partition (yet). */
    String ABSENT = "absent";

    /** One leader-epoch cache entry. */
    record EpochStart(long epoch, long startOffset) {
        /** A leader-epoch cache's entries, in their order. */
        public static List<EpochStart> of(List<EpochEntry> entries) {
            List<EpochStart> out = new ArrayList<>(entries.size());
            for (EpochEntry e : entries) {
                out.add(new EpochStart(e.epoch(), e.startOffset()));
            }
            return out;
        }
    }

    /**
     * The controller's registration of one partition, written when it changes (every partition
     * epoch, in order). {@code unclean}: this change elected a leader outside the previous ISR and
     * ELR (ISR-8's unclean election).
     */
    record ControllerState(long t, int partition, int leader, int leaderEpoch, int partitionEpoch, List<Integer> isr,
                           List<Integer> elr, List<Integer> lastKnownElr, boolean recovering, boolean unclean)
            implements HistoryEvent {
        /** Immutable copies. */
        public ControllerState {
            isr = List.copyOf(isr);
            elr = List.copyOf(elr);
            lastKnownElr = List.copyOf(lastKnownElr);
        }

        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "controller", "partition", partition, "leader", leader, "leaderEpoch", leaderEpoch,
                    "partitionEpoch", partitionEpoch, "isr", isr, "elr", elr, "lastKnownElr", lastKnownElr,
                    "recovering", recovering, "unclean", unclean);
        }
    }

    /**
     * The controller's registration of one broker, written when it changes: a new {@code epoch} is a
     * new incarnation's registration (LDR-4).
     */
    record Broker(long t, int broker, long epoch, boolean fenced, boolean shuttingDown) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "broker", "broker", broker, "epoch", epoch, "fenced", fenced,
                    "shuttingDown", shuttingDown);
        }
    }

    /**
     * Every fault is undone from {@code t} on and writes have stopped: within {@code boundMs} every
     * partition must be whole again (the liveness invariant).
     */
    record Quiesce(long t, long boundMs) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "quiesce", "boundMs", boundMs);
        }
    }

    /** One record in a broker's final log. */
    record LogEntry(long offset, int epoch, String value) {
        Map<String, Object> toJson() {
            return obj("offset", offset, "epoch", epoch, "value", value);
        }
    }

    /** A broker's log of one partition after the heal-and-quiesce phase, from its log start. */
    record Final(int broker, int partition, long hw, long leo, long logStart, List<LogEntry> log) implements HistoryEvent {
        /** Immutable copy. */
        public Final {
            log = List.copyOf(log);
        }

        /** A partition-0 log starting at offset 0. */
        public Final(int broker, long hw, long leo, List<LogEntry> log) {
            this(broker, 0, hw, leo, 0, log);
        }

        @Override
        public long t() {
            return -1;
        }

        @Override
        public Map<String, Object> toJson() {
            List<Object> entries = new ArrayList<>(log.size());
            for (LogEntry e : log) {
                entries.add(e.toJson());
            }
            return obj("type", "final", "broker", broker, "partition", partition, "hw", hw, "leo", leo,
                    "logStart", logStart, "log", entries);
        }
    }

    private static Map<String, Object> obj(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    /**
     * Parses one history line.
     *
     * @throws IllegalArgumentException for an unknown type or a missing or mistyped field
     */
    static HistoryEvent fromJson(Map<String, Object> m) {
        String type = str(m, "type");
        return switch (type) {
            case "settings" -> {
                Map<String, Object> values = new LinkedHashMap<>(m);
                values.remove("t");
                values.remove("type");
                values.remove("seed");
                yield new Settings(num(m, "t"), num(m, "seed"), values);
            }
            case "config" -> new Config(num(m, "t"), (int) num(m, "minIsr"), ints(m, "replicas"), bool(m, "unclean"),
                    (int) num(m, "partitions"), m.containsKey("assignment") ? intLists(m, "assignment") : List.of());
            case "produce-invoke" -> new ProduceInvoke(num(m, "t"), num(m, "id"), str(m, "client"),
                    (int) num(m, "partition"), str(m, "acks"), str(m, "value"), num(m, "timeoutMs"), num(m, "deadlineMs"));
            case "produce-ok" -> new ProduceOk(num(m, "t"), num(m, "id"), num(m, "offset"), (int) num(m, "epoch"));
            case "produce-fail" -> new ProduceFail(num(m, "t"), num(m, "id"), str(m, "error"));
            case "poll-invoke" -> new PollInvoke(num(m, "t"), num(m, "id"), str(m, "client"), (int) num(m, "partition"),
                    num(m, "position"), (int) num(m, "broker"), num(m, "timeoutMs"));
            case "poll-done" -> new PollDone(num(m, "t"), num(m, "id"), str(m, "outcome"), (int) num(m, "records"),
                    num(m, "next"));
            case "consume" -> new Consume(num(m, "t"), num(m, "poll"), str(m, "client"), (int) num(m, "partition"),
                    num(m, "offset"), str(m, "value"));
            case "fault" -> new Fault(num(m, "t"), str(m, "kind"), ints(m, "brokers"), map(m, "params"));
            case "sample" -> {
                List<EpochStart> epochs = new ArrayList<>();
                for (Object o : list(m, "epochs")) {
                    List<?> pair = (List<?>) o;
                    if (pair.size() != 2) {
                        throw new IllegalArgumentException("epoch cache entry " + pair + " is not [epoch, startOffset]");
                    }
                    epochs.add(new EpochStart(((Number) pair.get(0)).longValue(), ((Number) pair.get(1)).longValue()));
                }
                yield new Sample(num(m, "t"), (int) num(m, "broker"), (int) num(m, "partition"),
                        (int) num(m, "incarnation"), str(m, "status"), bool(m, "leader"), (int) num(m, "leaderEpoch"),
                        ints(m, "isr"), num(m, "hw"), num(m, "leo"), num(m, "logStart"), epochs);
            }
            case "controller" -> new ControllerState(num(m, "t"), (int) num(m, "partition"), (int) num(m, "leader"),
                    (int) num(m, "leaderEpoch"), (int) num(m, "partitionEpoch"), ints(m, "isr"), ints(m, "elr"),
                    ints(m, "lastKnownElr"), bool(m, "recovering"), bool(m, "unclean"));
            case "broker" -> new Broker(num(m, "t"), (int) num(m, "broker"), num(m, "epoch"), bool(m, "fenced"),
                    bool(m, "shuttingDown"));
            case "quiesce" -> new Quiesce(num(m, "t"), num(m, "boundMs"));
            case "final" -> {
                List<LogEntry> log = new ArrayList<>();
                for (Object o : list(m, "log")) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> e = (Map<String, Object>) o;
                    log.add(new LogEntry(num(e, "offset"), (int) num(e, "epoch"), str(e, "value")));
                }
                yield new Final((int) num(m, "broker"), (int) num(m, "partition"), num(m, "hw"), num(m, "leo"),
                        num(m, "logStart"), log);
            }
            default -> throw new IllegalArgumentException("Unknown history event type '" + type + "'");
        };
    }

    /** An unmodifiable copy in key order with every integral number as a Long (as {@link Json#read} gives them). */
    private static Map<String, Object> normalised(Map<String, Object> values) {
        Map<String, Object> copy = new LinkedHashMap<>();
        values.forEach((k, v) -> copy.put(k, v instanceof Integer || v instanceof Short || v instanceof Byte
                ? Long.valueOf(((Number) v).longValue()) : v));
        return java.util.Collections.unmodifiableMap(copy);
    }

    private static Object field(Map<String, Object> m, String key) {
        if (!m.containsKey(key)) {
            throw new IllegalArgumentException("History event " + m + " lacks '" + key + "'");
        }
        return m.get(key);
    }

    private static <T> T typed(Map<String, Object> m, String key, Class<T> type) {
        Object v = field(m, key);
        if (!type.isInstance(v)) {
            throw new IllegalArgumentException("History event field '" + key + "' is " + v + ", not a "
                    + type.getSimpleName().toLowerCase(java.util.Locale.ROOT));
        }
        return type.cast(v);
    }

    private static String str(Map<String, Object> m, String key) {
        return typed(m, key, String.class);
    }

    private static long num(Map<String, Object> m, String key) {
        return typed(m, key, Number.class).longValue();
    }

    private static boolean bool(Map<String, Object> m, String key) {
        return typed(m, key, Boolean.class);
    }

    private static List<?> list(Map<String, Object> m, String key) {
        return typed(m, key, List.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> m, String key) {
        return typed(m, key, Map.class);
    }

    private static List<Integer> ints(Map<String, Object> m, String key) {
        return ints(list(m, key), key);
    }

    private static List<Integer> ints(List<?> values, String key) {
        List<Integer> out = new ArrayList<>();
        for (Object o : values) {
            if (!(o instanceof Number n)) {
                throw new IllegalArgumentException("History event field '" + key + "' holds " + o + ", not a number");
            }
            out.add(n.intValue());
        }
        return out;
    }

    private static List<List<Integer>> intLists(Map<String, Object> m, String key) {
        List<List<Integer>> out = new ArrayList<>();
        for (Object o : list(m, key)) {
            if (!(o instanceof List<?> l)) {
                throw new IllegalArgumentException("History event field '" + key + "' holds " + o + ", not a list");
            }
            out.add(ints(l, key));
        }
        return out;
    }
}
