package dev.insync.replication.testkit.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One line of a simulation history ({@code <seed>.jsonl}): what clients invoked and observed, the
 * faults injected, configuration changes, and each broker's final log. An independent checker can
 * decide every client-visible invariant of SPEC §11 from these lines alone.
 */
public sealed interface HistoryEvent {

    /** This event as one JSON object, keys in the documented order. */
    Map<String, Object> toJson();

    /** A produce call was made; {@code value} is unique per call. */
    record ProduceInvoke(long t, long id, String client, String acks, String value) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "produce-invoke", "id", id, "client", client, "acks", acks, "value", value);
        }
    }

    /** A produce call succeeded at {@code offset}, written in leader epoch {@code epoch}. */
    record ProduceOk(long t, long id, long offset, int epoch) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "produce-ok", "id", id, "offset", offset, "epoch", epoch);
        }
    }

    /** A produce call failed with a wire error name (e.g. NOT_ENOUGH_REPLICAS). */
    record ProduceFail(long t, long id, String error) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "produce-fail", "id", id, "error", error);
        }
    }

    /** A consumer read {@code value} at {@code offset} (below the HW of the leader it read from). */
    record Consume(long t, String client, long offset, String value) implements HistoryEvent {
        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "consume", "client", client, "offset", offset, "value", value);
        }
    }

    /** A fault injected: pause, resume, kill, restart, power, partition, heal, shutdown. */
    record Fault(long t, String kind, List<Integer> brokers) implements HistoryEvent {
        /** Immutable copy. */
        public Fault {
            brokers = List.copyOf(brokers);
        }

        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "fault", "kind", kind, "brokers", brokers);
        }
    }

    /** The configuration in force from {@code t} on. */
    record Config(long t, int minIsr, List<Integer> replicas, boolean unclean) implements HistoryEvent {
        /** Immutable copy. */
        public Config {
            replicas = List.copyOf(replicas);
        }

        @Override
        public Map<String, Object> toJson() {
            return obj("t", t, "type", "config", "minIsr", minIsr, "replicas", replicas, "unclean", unclean);
        }
    }

    /** One record in a broker's final log. */
    record LogEntry(long offset, int epoch, String value) {
        Map<String, Object> toJson() {
            return obj("offset", offset, "epoch", epoch, "value", value);
        }
    }

    /** A broker's state after the heal-and-quiesce phase. */
    record Final(int broker, long hw, long leo, List<LogEntry> log) implements HistoryEvent {
        /** Immutable copy. */
        public Final {
            log = List.copyOf(log);
        }

        @Override
        public Map<String, Object> toJson() {
            List<Object> entries = new ArrayList<>(log.size());
            for (LogEntry e : log) {
                entries.add(e.toJson());
            }
            return obj("type", "final", "broker", broker, "hw", hw, "leo", leo, "log", entries);
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
     * @throws IllegalArgumentException for an unknown type or a missing field
     */
    static HistoryEvent fromJson(Map<String, Object> m) {
        String type = str(m, "type");
        return switch (type) {
            case "produce-invoke" -> new ProduceInvoke(num(m, "t"), num(m, "id"), str(m, "client"), str(m, "acks"), str(m, "value"));
            case "produce-ok" -> new ProduceOk(num(m, "t"), num(m, "id"), num(m, "offset"), (int) num(m, "epoch"));
            case "produce-fail" -> new ProduceFail(num(m, "t"), num(m, "id"), str(m, "error"));
            case "consume" -> new Consume(num(m, "t"), str(m, "client"), num(m, "offset"), str(m, "value"));
            case "fault" -> new Fault(num(m, "t"), str(m, "kind"), ints(m, "brokers"));
            case "config" -> new Config(num(m, "t"), (int) num(m, "minIsr"), ints(m, "replicas"), (Boolean) field(m, "unclean"));
            case "final" -> {
                List<LogEntry> log = new ArrayList<>();
                for (Object o : (List<?>) field(m, "log")) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> e = (Map<String, Object>) o;
                    log.add(new LogEntry(num(e, "offset"), (int) num(e, "epoch"), str(e, "value")));
                }
                yield new Final((int) num(m, "broker"), num(m, "hw"), num(m, "leo"), log);
            }
            default -> throw new IllegalArgumentException("Unknown history event type '" + type + "'");
        };
    }

    private static Object field(Map<String, Object> m, String key) {
        if (!m.containsKey(key)) {
            throw new IllegalArgumentException("History event " + m + " lacks '" + key + "'");
        }
        return m.get(key);
    }

    private static String str(Map<String, Object> m, String key) {
        return (String) field(m, key);
    }

    private static long num(Map<String, Object> m, String key) {
        return ((Number) field(m, key)).longValue();
    }

    private static List<Integer> ints(Map<String, Object> m, String key) {
        List<Integer> out = new ArrayList<>();
        for (Object o : (List<?>) field(m, key)) {
            out.add(((Number) o).intValue());
        }
        return out;
    }
}
