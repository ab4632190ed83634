package dev.insync.replication.testkit.history;

import dev.insync.replication.testkit.history.HistoryEvent.Config;
import dev.insync.replication.testkit.history.HistoryEvent.Consume;
import dev.insync.replication.testkit.history.HistoryEvent.Final;
import dev.insync.replication.testkit.history.HistoryEvent.LogEntry;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceFail;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceInvoke;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceOk;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Decides SPEC §11's invariants over a history and the simulator's state samples. Every check is
 * written against what a client could observe plus each broker's final log, so that it does not
 * trust the library's own bookkeeping.
 */
public final class InvariantChecker {

    private final long produceTimeoutMs;
    private final long completionSlackMs;

    /**
     * @param produceTimeoutMs   the timeout every produce call was given (INV-5)
     * @param completionSlackMs  network time a response may take on top of the broker-side timeout
     */
    public InvariantChecker(long produceTimeoutMs, long completionSlackMs) {
        this.produceTimeoutMs = produceTimeoutMs;
        this.completionSlackMs = completionSlackMs;
    }

    /** All violations found, in the order of the invariants' ids. */
    public List<Violation> check(History history, List<StateSample> samples) {
        List<HistoryEvent> events = history.events();
        List<Violation> out = new ArrayList<>();
        List<Final> finals = events.stream().filter(Final.class::isInstance).map(Final.class::cast).toList();
        checkAckedAndConsumedKept(events, finals, out);
        checkConvergence(finals, out);
        checkHighWatermarks(finals, samples, out);
        checkCompletions(events, out);
        checkIsrHoldsHighWatermark(samples, out);
        checkEpochs(samples, out);
        return out;
    }

    /** INV-1 and INV-2: acknowledged acks=all records and consumed records are in every final log, unchanged. */
    private void checkAckedAndConsumedKept(List<HistoryEvent> events, List<Final> finals, List<Violation> out) {
        Map<Long, ProduceInvoke> invokes = new HashMap<>();
        List<Config> configs = new ArrayList<>();
        for (HistoryEvent e : events) {
            if (e instanceof ProduceInvoke p) {
                invokes.put(p.id(), p);
            } else if (e instanceof Config c) {
                configs.add(c);
            }
        }
        for (HistoryEvent e : events) {
            if (e instanceof ProduceOk ok) {
                ProduceInvoke inv = invokes.get(ok.id());
                if (inv != null && "all".equals(inv.acks()) && protectedFrom(inv.t(), configs)) {
                    requireEverywhere("INV-1", ok.t(), ok.offset(), inv.value(), "acks=all record id " + ok.id(), finals, out);
                }
            } else if (e instanceof Consume c && protectedFrom(c.t(), configs)) {
                requireEverywhere("INV-2", c.t(), c.offset(), c.value(), "record consumed by " + c.client(), finals, out);
            }
        }
    }

    /** Whether min ISR >= 2 and no unclean election held from {@code t} to the end. */
    private static boolean protectedFrom(long t, List<Config> configs) {
        Config inForce = null;
        for (Config c : configs) {
            if (c.t() <= t) {
                inForce = c;
            } else if (c.minIsr() < 2 || c.unclean()) {
                return false;
            }
        }
        return inForce != null && inForce.minIsr() >= 2 && !inForce.unclean();
    }

    private static void requireEverywhere(String inv, long t, long offset, String value, String what,
                                          List<Final> finals, List<Violation> out) {
        for (Final f : finals) {
            LogEntry entry = entryAt(f, offset);
            if (entry == null || !Objects.equals(entry.value(), value)) {
                out.add(new Violation(inv, t, what + " '" + value + "' at offset " + offset + " is "
                        + (entry == null ? "missing" : "'" + entry.value() + "'") + " in broker " + f.broker() + "'s final log"));
            }
        }
    }

    private static LogEntry entryAt(Final f, long offset) {
        for (LogEntry e : f.log()) {
            if (e.offset() == offset) {
                return e;
            }
        }
        return null;
    }

    /** INV-3: after healing, every replica holds the same log and the same HW. */
    private static void checkConvergence(List<Final> finals, List<Violation> out) {
        for (int i = 1; i < finals.size(); i++) {
            Final a = finals.get(0);
            Final b = finals.get(i);
            if (!a.log().equals(b.log())) {
                out.add(new Violation("INV-3", -1, "broker " + b.broker() + "'s log differs from broker " + a.broker()
                        + "'s: first difference " + firstDifference(a.log(), b.log())));
            }
            if (a.hw() != b.hw()) {
                out.add(new Violation("INV-3", -1, "HW " + b.hw() + " on broker " + b.broker() + " but " + a.hw()
                        + " on broker " + a.broker()));
            }
        }
    }

    private static String firstDifference(List<LogEntry> a, List<LogEntry> b) {
        int n = Math.min(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            if (!a.get(i).equals(b.get(i))) {
                return a.get(i) + " vs " + b.get(i);
            }
        }
        return "lengths " + a.size() + " vs " + b.size();
    }

    /** INV-4: a leader's HW never decreases within an epoch; nobody's HW exceeds its LEO. */
    private static void checkHighWatermarks(List<Final> finals, List<StateSample> samples, List<Violation> out) {
        for (Final f : finals) {
            if (f.hw() > f.leo()) {
                out.add(new Violation("INV-4", -1, "broker " + f.broker() + " HW " + f.hw() + " above LEO " + f.leo()));
            }
        }
        Map<String, Long> lastLeaderHw = new HashMap<>();
        for (StateSample s : samples) {
            if (s.hw() > s.leo()) {
                out.add(new Violation("INV-4", s.t(), "broker " + s.broker() + " HW " + s.hw() + " above LEO " + s.leo()));
            }
            if (s.leader()) {
                String key = s.broker() + "/" + s.incarnation() + "/" + s.leaderEpoch();
                Long previous = lastLeaderHw.put(key, s.hw());
                if (previous != null && s.hw() < previous) {
                    out.add(new Violation("INV-4", s.t(), "leader " + s.broker() + " HW went down from " + previous
                            + " to " + s.hw() + " in epoch " + s.leaderEpoch()));
                }
            }
        }
    }

    /** INV-5: every produce call completes exactly once, within its timeout. */
    private void checkCompletions(List<HistoryEvent> events, List<Violation> out) {
        Map<Long, ProduceInvoke> open = new HashMap<>();
        Map<Long, Integer> completions = new HashMap<>();
        long lastT = 0;
        for (HistoryEvent e : events) {
            long id;
            long t;
            if (e instanceof ProduceInvoke p) {
                open.put(p.id(), p);
                lastT = Math.max(lastT, p.t());
                continue;
            } else if (e instanceof ProduceOk ok) {
                id = ok.id();
                t = ok.t();
            } else if (e instanceof ProduceFail f) {
                id = f.id();
                t = f.t();
            } else {
                continue;
            }
            lastT = Math.max(lastT, t);
            int n = completions.merge(id, 1, Integer::sum);
            ProduceInvoke inv = open.get(id);
            if (inv == null) {
                out.add(new Violation("INV-5", t, "completion of produce id " + id + " that was never invoked"));
            } else if (n > 1) {
                out.add(new Violation("INV-5", t, "produce id " + id + " completed " + n + " times"));
            } else if (t - inv.t() > produceTimeoutMs + completionSlackMs) {
                out.add(new Violation("INV-5", t, "produce id " + id + " took " + (t - inv.t()) + " ms, timeout "
                        + produceTimeoutMs + " ms"));
            }
        }
        for (ProduceInvoke inv : open.values()) {
            if (!completions.containsKey(inv.id())) {
                out.add(new Violation("INV-5", inv.t(), "produce id " + inv.id() + " ('" + inv.value() + "') never completed"));
            }
        }
    }

    /**
     * INV-7: every ISR member holds every record below the leader's HW. Checked on samples taken at
     * the same instant, for members whose incarnation has not changed since the leader's epoch began
     * (a restarted broker is being removed from the ISR by the controller, LDR-5).
     */
    private static void checkIsrHoldsHighWatermark(List<StateSample> samples, List<Violation> out) {
        Map<Long, List<StateSample>> byTime = new HashMap<>();
        for (StateSample s : samples) {
            byTime.computeIfAbsent(s.t(), k -> new ArrayList<>()).add(s);
        }
        Map<String, Map<Integer, Integer>> firstSeen = new HashMap<>();
        for (StateSample s : samples) {
            if (!s.leader()) {
                continue;
            }
            Map<Integer, Integer> atStart = firstSeen.computeIfAbsent(s.broker() + "/" + s.leaderEpoch(), k -> {
                Map<Integer, Integer> m = new HashMap<>();
                for (StateSample o : byTime.get(s.t())) {
                    m.put(o.broker(), o.incarnation());
                }
                return m;
            });
            for (StateSample member : byTime.get(s.t())) {
                if (member.broker() == s.broker() || !s.isr().contains(member.broker())) {
                    continue;
                }
                Integer startIncarnation = atStart.get(member.broker());
                if (startIncarnation == null || startIncarnation != member.incarnation()) {
                    continue;
                }
                if (member.leo() < s.hw()) {
                    out.add(new Violation("INV-7", s.t(), "ISR member " + member.broker() + " has LEO " + member.leo()
                            + " below leader " + s.broker() + "'s HW " + s.hw()));
                }
            }
        }
    }

    /** INV-8: epoch caches strictly increase in epoch and start offset; one leader per leader epoch. */
    private static void checkEpochs(List<StateSample> samples, List<Violation> out) {
        Map<Integer, Integer> leaderOfEpoch = new HashMap<>();
        for (StateSample s : samples) {
            long[] previous = null;
            for (long[] entry : s.epochStartOffsets()) {
                if (previous != null && (entry[0] <= previous[0] || entry[1] <= previous[1])) {
                    out.add(new Violation("INV-8", s.t(), "broker " + s.broker() + " epoch cache not strictly increasing: ("
                            + previous[0] + ", " + previous[1] + ") then (" + entry[0] + ", " + entry[1] + ")"));
                }
                previous = entry;
            }
            if (s.leader()) {
                Integer other = leaderOfEpoch.putIfAbsent(s.leaderEpoch(), s.broker());
                if (other != null && other != s.broker()) {
                    out.add(new Violation("INV-8", s.t(), "brokers " + other + " and " + s.broker()
                            + " both led epoch " + s.leaderEpoch()));
                }
            }
        }
    }
}
