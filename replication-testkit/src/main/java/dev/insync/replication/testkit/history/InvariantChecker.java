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

import dev.insync.replication.testkit.history.HistoryEvent.Config;
import dev.insync.replication.testkit.history.HistoryEvent.Consume;
import dev.insync.replication.testkit.history.HistoryEvent.ControllerState;
import dev.insync.replication.testkit.history.HistoryEvent.EpochStart;
import dev.insync.replication.testkit.history.HistoryEvent.Final;
import dev.insync.replication.testkit.history.HistoryEvent.LogEntry;
import dev.insync.replication.testkit.history.HistoryEvent.PollDone;
import dev.insync.replication.testkit.history.HistoryEvent.PollInvoke;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceFail;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceInvoke;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceOk;
import dev.insync.replication.testkit.history.HistoryEvent.Quiesce;
import dev.insync.replication.testkit.history.HistoryEvent.Sample;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * Decides contract §11's invariants from a {@link History} alone: what clients were given, the faults,
 * the configuration, the brokers' and the controller's sampled state and the final logs are all in
 * the file, so an independent checker reading the same JSON lines reaches the same verdict. Nothing
 * here looks at a live cluster.
 *
 * <ul>
 *   <li>INV-1 / INV-2: every acks=all record acknowledged with NONE, and every record a consumer was
 *       given, is in every final log of its partition at its offset, unchanged — for records that
 *       min ISR ≥ 2 protected from then on and that no later unclean election of their partition
 *       could have taken away ("then" is the produce call's invocation, or the invocation of the
 *       poll that returned the record: a poll sent before an unclean election may be answered late
 *       by a deposed leader that has not heard of it; and an acknowledgement in a leader epoch below
 *       an unclean election's, which a deposed leader gives after it). Offsets below a final log's start were removed by retention (whose
 *       bound is LOG-10's check). INV-2 also needs every record a consumer was given to be in the
 *       history: each poll starts where the previous one left the consumer.</li>
 *   <li>INV-3: final logs of a partition are identical from the highest log start on, with one HW.</li>
 *   <li>INV-4: a leader's HW never decreases within its epoch; no HW exceeds its LEO.</li>
 *   <li>INV-5: every produce call completes exactly once, within the deadline it was invoked with.</li>
 *   <li>INV-7: at every sampling instant, every member of a leader's ISR (same incarnation as when it
 *       joined the controller's ISR, or when the leader's epoch began) has an LEO at or above the
 *       leader's HW. A join committed while the member holds no replica is that of the incarnation
 *       that last held one.</li>
 *   <li>INV-8: epoch caches strictly increase in epoch and start offset; one leader per leader epoch.</li>
 *   <li>LOG-10: a leader's log start never passes its HW.</li>
 *   <li>LOG-8: at the end, every broker's leader-epoch cache describes its final log.</li>
 *   <li>LDR-5: a broker process started after a crash is in no ELR from its registration on, once
 *       it is unfenced (so could be elected), until it rejoins the ISR. A registration that is never
 *       unfenced (sent by a process that died, answered late by a paused controller) cannot lead
 *       and is not judged; nor is the registration of the process whose own disk failed before it
 *       registered.</li>
 *   <li>LIVENESS: once faults are healed ({@code quiesce}), within its bound every partition has a
 *       leader, every replica in the controller's ISR, HW = LEO on every replica, and an acks=all
 *       probe write succeeds. Excused (and reported as such) when the controller's last state of the
 *       partition leaves no ISR or ELR member and unclean election is off.</li>
 * </ul>
 */
public final class InvariantChecker {

    /** Client name of the liveness probe writes. */
    public static final String PROBE_CLIENT = "probe";
    /** Fault kinds after which a broker's next registration is unclean (LDR-5). */
    private static final Set<String> UNCLEAN_STOPS = Set.of("kill", "power", "disk-offline", "disk-replace");

    /** A checker; it holds no state between histories. */
    public InvariantChecker() {
    }

    /**
     * Whether a partition is whole, as LIVENESS needs it after the heal: the controller names a leader
     * and has every replica in the ISR, and every replica's latest sample is of a running broker with
     * HW = LEO, all LEOs equal, the controller's leader acting as leader in the controller's epoch.
     * A harness that drives a heal asks this of the samples it recorded, so that it probes once the
     * checker will also find the partition whole.
     *
     * @param replicas       the partition's replicas
     * @param leader         the controller's leader, negative for none
     * @param leaderEpoch    the controller's leader epoch
     * @param isr            the controller's ISR
     * @param latestSampleOf a replica's latest sample of the partition, null if none
     */
    public static boolean whole(Set<Integer> replicas, int leader, int leaderEpoch, List<Integer> isr,
                                IntFunction<Sample> latestSampleOf) {
        if (leader < 0 || !Set.copyOf(isr).equals(replicas)) {
            return false;
        }
        long leo = -1;
        for (int b : replicas) {
            Sample s = latestSampleOf.apply(b);
            if (s == null || !HistoryEvent.RUNNING.equals(s.status()) || s.hw() != s.leo() || (leo >= 0 && s.leo() != leo)) {
                return false;
            }
            if (b == leader && (!s.leader() || s.leaderEpoch() != leaderEpoch)) {
                return false;
            }
            leo = s.leo();
        }
        return true;
    }

    /** The violations in {@code history} (the excused failures dropped). */
    public List<Violation> violations(History history) {
        return check(history).violations();
    }

    /** Everything found in {@code history}. */
    public Verdict check(History history) {
        return new Run(history.events()).check();
    }

    /** One pass over one history. */
    private static final class Run {
        private final List<HistoryEvent> events;
        private final List<Config> configs = new ArrayList<>();
        private final Map<Long, ProduceInvoke> invokes = new HashMap<>();
        private final Map<Long, PollInvoke> polls = new HashMap<>();
        /**
         * Per poll sent to a broker the controller no longer had as the partition's leader (a
         * consumer's cached, deposed leader): when the controller last deposed that broker.
         */
        private final Map<Long, Long> pollsToDeposed = new HashMap<>();
        /** Per partition: the unclean elections the controller's state shows, in history order. */
        private final Map<Integer, List<UncleanElection>> uncleanElections = new HashMap<>();
        private final Map<Integer, List<Final>> finals = new TreeMap<>();
        private final Map<Integer, ControllerState> lastController = new TreeMap<>();
        private final Set<Integer> excusedPartitions = new HashSet<>();
        private final List<Violation> out = new ArrayList<>();
        private final List<Violation> excused = new ArrayList<>();
        private Quiesce quiesce;

        Run(List<HistoryEvent> events) {
            this.events = events;
            // Per partition and broker (key: partition << 32 | broker): when the controller last
            // moved leadership away from that broker.
            Map<Long, Long> deposedAt = new HashMap<>();
            for (HistoryEvent e : events) {
                if (e instanceof Config c) {
                    configs.add(c);
                } else if (e instanceof ProduceInvoke p) {
                    invokes.put(p.id(), p);
                } else if (e instanceof PollInvoke p) {
                    polls.put(p.id(), p);
                    ControllerState now = lastController.get(p.partition());
                    Long deposed = deposedAt.get(((long) p.partition() << 32) | (p.broker() & 0xFFFFFFFFL));
                    if (now != null && now.leader() != p.broker() && deposed != null) {
                        pollsToDeposed.put(p.id(), deposed);
                    }
                } else if (e instanceof ControllerState c) {
                    ControllerState before = lastController.get(c.partition());
                    if (before != null && before.leader() != c.leader() && before.leader() >= 0) {
                        deposedAt.put(((long) c.partition() << 32) | (before.leader() & 0xFFFFFFFFL), c.t());
                    }
                    lastController.put(c.partition(), c);
                    if (c.unclean()) {
                        uncleanElections.computeIfAbsent(c.partition(), k -> new ArrayList<>())
                                .add(new UncleanElection(c.t(), c.leaderEpoch()));
                    }
                } else if (e instanceof Final f) {
                    finals.computeIfAbsent(f.partition(), k -> new ArrayList<>()).add(f);
                } else if (e instanceof Quiesce q) {
                    quiesce = q;
                }
            }
        }

        Verdict check() {
            checkLiveness();
            checkAckedAndConsumedKept();
            checkConsumersSawEverything();
            checkConvergence();
            checkCompletions();
            checkSamples();
            checkUncleanRestartsLeaveElr();
            checkEpochCachesMatchFinalLogs();
            out.sort((a, b) -> a.invariant().compareTo(b.invariant()));
            return new Verdict(out, excused);
        }

        // ------------------------------------------------------------------ INV-1, INV-2

        private void checkAckedAndConsumedKept() {
            for (HistoryEvent e : events) {
                if (e instanceof ProduceOk ok) {
                    ProduceInvoke inv = invokes.get(ok.id());
                    if (inv != null && "all".equals(inv.acks()) && protectedFrom(inv.t(), inv.partition(), ok.epoch())) {
                        requireKept("INV-1", ok.t(), inv.partition(), ok.offset(), inv.value(),
                                "acks=all record id " + ok.id());
                    }
                } else if (e instanceof Consume c && protectedFrom(readAt(c), c.partition(), Integer.MAX_VALUE)) {
                    requireKept("INV-2", c.t(), c.partition(), c.offset(), c.value(),
                            "record consumed by " + c.client() + " (poll " + c.poll() + ")");
                }
            }
        }

        /**
         * When a consumed record was read, for INV-2's premise: its poll's invocation. The answer may
         * come from a leader that was deposed meanwhile (paused, say) and serves what it had, so the
         * read belongs to the history as of the request, not of the answer; and a poll sent to a leader
         * that was already deposed (a client's cached leader) belongs to the history as of its
         * deposition, since a broker that answers a consumer has not heard of it.
         */
        private long readAt(Consume c) {
            PollInvoke p = polls.get(c.poll());
            long at = p == null ? c.t() : Math.min(p.t(), c.t());
            // A poll sent to a deposed leader (a client's cached leader) is answered, if at all, by a
            // broker that has not heard of its deposition: it serves the history as of then.
            Long deposed = pollsToDeposed.get(c.poll());
            return deposed == null ? at : Math.min(at, deposed);
        }

        /**
         * Whether min ISR ≥ 2 held from {@code t} to the end and no unclean election of the partition
         * could take the record away: none happened at or after {@code t}, and none made a leader
         * epoch above {@code epoch}, the one the record was written in. An unclean election before
         * {@code t} of an epoch at or below the record's does not excuse: the leader it made is the
         * partition's legitimate history from then on. One of a higher epoch does, whenever it
         * happened: a deposed leader that has not heard of it (cut off from the controller with its
         * followers, say) still acknowledges in its old epoch, and those records are exactly what the
         * unclean leader's log may lack.
         */
        private boolean protectedFrom(long t, int partition, int epoch) {
            Config inForce = null;
            for (Config c : configs) {
                if (c.t() <= t) {
                    inForce = c;
                } else if (c.minIsr() < 2) {
                    return false;
                }
            }
            if (inForce == null || inForce.minIsr() < 2) {
                return false;
            }
            for (UncleanElection u : uncleanElections.getOrDefault(partition, List.of())) {
                if (u.t() >= t || u.leaderEpoch() > epoch) {
                    return false;
                }
            }
            return true;
        }

        private void requireKept(String inv, long t, int partition, long offset, String value, String what) {
            List<Final> logs = finals.getOrDefault(partition, List.of());
            if (excusedPartitions.contains(partition)) {
                // Never whole again (excused): the record must still be somewhere.
                boolean anywhere = logs.stream().anyMatch(f -> f.logStart() > offset
                        || (entryAt(f, offset) != null && Objects.equals(entryAt(f, offset).value(), value)));
                if (!anywhere) {
                    out.add(new Violation(inv, t, what + " '" + value + "' at offset " + offset + " of partition "
                            + partition + " is in no final log"));
                }
                return;
            }
            for (Final f : logs) {
                if (offset < f.logStart()) {
                    continue; // removed by retention; LOG-10 bounds how far the log start may move
                }
                LogEntry entry = entryAt(f, offset);
                if (entry == null || !Objects.equals(entry.value(), value)) {
                    out.add(new Violation(inv, t, what + " '" + value + "' at offset " + offset + " of partition "
                            + partition + " is " + (entry == null ? "missing" : "'" + entry.value() + "'")
                            + " in broker " + f.broker() + "'s final log"));
                }
            }
        }

        /** An unclean election the controller committed: when the history saw it, and the leader epoch it made. */
        private record UncleanElection(long t, int leaderEpoch) {
        }

        private static LogEntry entryAt(Final f, long offset) {
            List<LogEntry> log = f.log();
            int lo = 0;
            int hi = log.size() - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                long o = log.get(mid).offset();
                if (o == offset) {
                    return log.get(mid);
                } else if (o < offset) {
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return null;
        }

        /** INV-2's premise: every record a consumer was given is in the history. */
        private void checkConsumersSawEverything() {
            Map<String, Long> position = new HashMap<>();
            Map<Long, PollInvoke> open = new HashMap<>();
            Map<Long, Integer> consumed = new HashMap<>();
            for (HistoryEvent e : events) {
                if (e instanceof PollInvoke p) {
                    String key = p.client() + "/" + p.partition();
                    long expected = position.getOrDefault(key, 0L);
                    if (p.position() != expected) {
                        out.add(new Violation("INV-2", p.t(), "poll " + p.id() + " of " + p.client() + " on partition "
                                + p.partition() + " starts at offset " + p.position() + ", but the consumer's previous "
                                + "poll left it at " + expected + ": what it was given in between is not in the history"));
                    }
                    open.put(p.id(), p);
                } else if (e instanceof Consume c) {
                    PollInvoke p = open.get(c.poll());
                    if (p == null || c.offset() < p.position()) {
                        out.add(new Violation("INV-2", c.t(), "record at offset " + c.offset() + " consumed by "
                                + c.client() + " outside an open poll at or below its position (poll " + c.poll() + ")"));
                    }
                    consumed.merge(c.poll(), 1, Integer::sum);
                } else if (e instanceof PollDone d) {
                    PollInvoke p = open.remove(d.id());
                    if (p == null) {
                        out.add(new Violation("INV-2", d.t(), "end of poll " + d.id() + " that was never invoked"));
                        continue;
                    }
                    int n = consumed.getOrDefault(d.id(), 0);
                    if (n != d.records()) {
                        out.add(new Violation("INV-2", d.t(), "poll " + d.id() + " of " + p.client() + " gave "
                                + d.records() + " records but " + n + " are in the history"));
                    }
                    position.put(p.client() + "/" + p.partition(), d.next());
                }
            }
        }

        // ------------------------------------------------------------------ INV-3

        private void checkConvergence() {
            for (Map.Entry<Integer, List<Final>> e : finals.entrySet()) {
                int partition = e.getKey();
                if (excusedPartitions.contains(partition)) {
                    continue;
                }
                List<Final> logs = e.getValue();
                long from = logs.stream().mapToLong(Final::logStart).max().orElse(0);
                Final a = logs.get(0);
                for (int i = 1; i < logs.size(); i++) {
                    Final b = logs.get(i);
                    List<LogEntry> la = from(a, from);
                    List<LogEntry> lb = from(b, from);
                    if (!la.equals(lb) || a.leo() != b.leo()) {
                        out.add(new Violation("INV-3", -1, "partition " + partition + ": broker " + b.broker()
                                + "'s log differs from broker " + a.broker() + "'s from offset " + from
                                + ": first difference " + firstDifference(la, lb) + " (LEO " + b.leo() + " vs " + a.leo() + ")"));
                    }
                    if (a.hw() != b.hw()) {
                        out.add(new Violation("INV-3", -1, "partition " + partition + ": HW " + b.hw() + " on broker "
                                + b.broker() + " but " + a.hw() + " on broker " + a.broker()));
                    }
                }
            }
        }

        private static List<LogEntry> from(Final f, long offset) {
            return f.log().stream().filter(entry -> entry.offset() >= offset).toList();
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

        // ------------------------------------------------------------------ INV-5

        private void checkCompletions() {
            Map<Long, Integer> completions = new HashMap<>();
            for (HistoryEvent e : events) {
                long id;
                if (e instanceof ProduceOk ok) {
                    id = ok.id();
                } else if (e instanceof ProduceFail f) {
                    id = f.id();
                } else {
                    continue;
                }
                long t = e.t();
                int n = completions.merge(id, 1, Integer::sum);
                ProduceInvoke inv = invokes.get(id);
                if (inv == null || inv.t() > t) {
                    out.add(new Violation("INV-5", t, "completion of produce id " + id + " that was never invoked"));
                } else if (n > 1) {
                    out.add(new Violation("INV-5", t, "produce id " + id + " completed " + n + " times"));
                } else if (t - inv.t() > inv.deadlineMs()) {
                    out.add(new Violation("INV-5", t, "produce id " + id + " took " + (t - inv.t()) + " ms, deadline "
                            + inv.deadlineMs() + " ms (broker-side timeout " + inv.timeoutMs() + " ms)"));
                }
            }
            for (ProduceInvoke inv : invokes.values()) {
                if (!completions.containsKey(inv.id())) {
                    out.add(new Violation("INV-5", inv.t(), "produce id " + inv.id() + " ('" + inv.value()
                            + "') never completed"));
                }
            }
        }

        // ------------------------------------------------------------------ samples: INV-4, INV-7, INV-8, LOG-10

        private void checkSamples() {
            Map<Long, Sample> current = new TreeMap<>();
            Map<String, Long> leaderHw = new HashMap<>();
            Map<String, Integer> leaderOfEpoch = new HashMap<>();
            Map<String, Map<Integer, Integer>> incarnationsAtEpochStart = new HashMap<>();
            // Per partition: every broker that was in the controller's ISR, with its incarnation when it last joined.
            Map<Integer, Map<Integer, Integer>> joinedIsr = new HashMap<>();
            Map<Integer, List<Integer>> controllerIsr = new HashMap<>();
            // Per (partition, broker): the incarnation of its latest sample that held the partition (running or paused).
            Map<Long, Integer> lastUpIncarnation = new HashMap<>();
            // Per partition, by time: the leader epoch of the latest unclean election recorded at or
            // before that time. Looked up by an instant's time, not by position in the file: the
            // recorder writes an instant's broker samples before the controller lines of the same
            // instant, and a follower's sample may already show the epoch that election began.
            Map<Integer, TreeMap<Long, Integer>> uncleanEpochs = new HashMap<>();
            for (HistoryEvent e : events) {
                if (e instanceof ControllerState c && c.unclean()) {
                    uncleanEpochs.computeIfAbsent(c.partition(), k -> new TreeMap<>()).merge(c.t(), c.leaderEpoch(), Math::max);
                }
            }
            int i = 0;
            while (i < events.size()) {
                HistoryEvent e = events.get(i);
                if (e instanceof ControllerState c) {
                    // A member that joined the ISR before it restarted is judged by its old incarnation, even
                    // if the controller (paused, say) learns of the restart only after electing a leader.
                    // Kept once it leaves: a leader's stale view may still list it.
                    // A member whose replica is not up now (down, or a new process that holds no state for the
                    // partition yet) cannot have fetched its way in: the leader proposed it for the incarnation
                    // that last held the replica, and the controller (down meanwhile, say) committed it late.
                    Map<Integer, Integer> joined = joinedIsr.computeIfAbsent(c.partition(), k -> new HashMap<>());
                    Map<Integer, Integer> now = incarnations(current, c.partition());
                    List<Integer> before = controllerIsr.getOrDefault(c.partition(), List.of());
                    for (int b : c.isr()) {
                        if (!before.contains(b) && now.containsKey(b)) {
                            Sample member = current.get(key(c.partition(), b));
                            Integer lastUp = lastUpIncarnation.get(key(c.partition(), b));
                            joined.put(b, member.up() || lastUp == null ? now.get(b) : lastUp);
                        }
                    }
                    controllerIsr.put(c.partition(), c.isr());
                }
                if (!(e instanceof Sample first)) {
                    i++;
                    continue;
                }
                // One sampling instant: consecutive samples with the same time.
                int j = i;
                while (j < events.size() && events.get(j) instanceof Sample s && s.t() == first.t()) {
                    checkOne(s, leaderHw, leaderOfEpoch);
                    current.put(key(s.partition(), s.broker()), s);
                    if (s.up()) {
                        lastUpIncarnation.put(key(s.partition(), s.broker()), s.incarnation());
                    }
                    j++;
                }
                checkIsrHoldsHighWatermark(first.t(), current, incarnationsAtEpochStart, joinedIsr, uncleanEpochs);
                i = j;
            }
        }

        private void checkOne(Sample s, Map<String, Long> leaderHw, Map<String, Integer> leaderOfEpoch) {
            if (!s.up()) {
                return;
            }
            if (s.hw() > s.leo()) {
                out.add(new Violation("INV-4", s.t(), "broker " + s.broker() + " partition " + s.partition() + " HW "
                        + s.hw() + " above LEO " + s.leo()));
            }
            EpochStart previous = null;
            for (EpochStart entry : s.epochs()) {
                if (previous != null && (entry.epoch() <= previous.epoch() || entry.startOffset() <= previous.startOffset())) {
                    out.add(new Violation("INV-8", s.t(), "broker " + s.broker() + " partition " + s.partition()
                            + " epoch cache not strictly increasing: (" + previous.epoch() + ", " + previous.startOffset()
                            + ") then (" + entry.epoch() + ", " + entry.startOffset() + ")"));
                }
                previous = entry;
            }
            if (!s.leader()) {
                return;
            }
            String epochKey = s.partition() + "/" + s.leaderEpoch();
            Integer other = leaderOfEpoch.putIfAbsent(epochKey, s.broker());
            if (other != null && other != s.broker()) {
                out.add(new Violation("INV-8", s.t(), "brokers " + other + " and " + s.broker() + " both led epoch "
                        + s.leaderEpoch() + " of partition " + s.partition()));
            }
            String key = s.partition() + "/" + s.broker() + "/" + s.incarnation() + "/" + s.leaderEpoch();
            Long before = leaderHw.put(key, s.hw());
            if (before != null && s.hw() < before) {
                out.add(new Violation("INV-4", s.t(), "leader " + s.broker() + " of partition " + s.partition()
                        + " HW went down from " + before + " to " + s.hw() + " in epoch " + s.leaderEpoch()));
            }
            if (s.logStart() > s.hw()) {
                out.add(new Violation("LOG-10", s.t(), "leader " + s.broker() + " of partition " + s.partition()
                        + " log start " + s.logStart() + " above its HW " + s.hw()));
            }
        }

        /**
         * INV-7 at one instant. Members whose incarnation changed since they joined the controller's ISR
         * (or, without controller lines, since the leader's first sample in its epoch) are
         * skipped (a restarted broker is being removed from the ISR by the controller, LDR-5), and so
         * are leaders of epochs before the partition's latest unclean election (which may legitimately
         * have truncated what they count as committed).
         */
        private void checkIsrHoldsHighWatermark(long t, Map<Long, Sample> current,
                                                Map<String, Map<Integer, Integer>> atEpochStart,
                                                Map<Integer, Map<Integer, Integer>> joinedIsr,
                                                Map<Integer, TreeMap<Long, Integer>> uncleanEpochs) {
            for (Sample leader : current.values()) {
                if (!leader.up() || !leader.leader()) {
                    continue;
                }
                TreeMap<Long, Integer> unclean = uncleanEpochs.get(leader.partition());
                Integer uncleanEpoch = unclean == null ? null
                        : unclean.headMap(t, true).values().stream().max(Integer::compare).orElse(null);
                if (uncleanEpoch != null && leader.leaderEpoch() < uncleanEpoch) {
                    continue;
                }
                Map<Integer, Integer> start = atEpochStart.computeIfAbsent(leader.partition() + "/" + leader.leaderEpoch(),
                        k -> incarnations(current, leader.partition()));
                for (int memberId : leader.isr()) {
                    if (memberId == leader.broker()) {
                        continue;
                    }
                    Sample member = current.get(key(leader.partition(), memberId));
                    Map<Integer, Integer> joined = joinedIsr.getOrDefault(leader.partition(), Map.of());
                    Integer judged = joined.containsKey(memberId) ? joined.get(memberId) : start.get(memberId);
                    if (member == null || !member.up() || !Objects.equals(judged, member.incarnation())) {
                        continue;
                    }
                    if (member.leo() < leader.hw()) {
                        out.add(new Violation("INV-7", t, "ISR member " + memberId + " of partition " + leader.partition()
                                + " has LEO " + member.leo() + " below leader " + leader.broker() + "'s HW " + leader.hw()
                                + " (epoch " + leader.leaderEpoch() + ")"));
                    }
                }
            }
        }

        private static long key(int partition, int broker) {
            return ((long) partition << 32) | (broker & 0xFFFFFFFFL);
        }

        private static Map<Integer, Integer> incarnations(Map<Long, Sample> current, int partition) {
            Map<Integer, Integer> m = new HashMap<>();
            for (Sample s : current.values()) {
                if (s.partition() == partition) {
                    m.put(s.broker(), s.incarnation());
                }
            }
            return m;
        }

        // ------------------------------------------------------------------ LDR-5

        /**
         * LDR-5 as the history shows it: a broker that crashed (kill or power loss), whose disk failed
         * ({@code disk-offline}: that directory could not leave a clean-shutdown marker, unless the
         * failure was the directory fsync right after the marker's rename, {@code markerInPlace}: then
         * everything before it was durable and the marker tells the truth) or whose disk
         * was swapped may have lost records, so from its next registration until it is back in a
         * partition's ISR it is in no ELR of that partition (and so cannot be elected from one),
         * judged while an incarnation registered since the crash is unfenced. The checker knows the
         * restart was unclean from the fault lines, whatever the broker told the controller.
         */
        private void checkUncleanRestartsLeaveElr() {
            Map<Integer, ControllerState> latest = new HashMap<>();
            Set<Integer> crashed = new HashSet<>();
            Map<Integer, Long> epochs = new HashMap<>();
            /** Broker -> partitions whose ISR it has not rejoined since its first registration after a crash. */
            Map<Integer, Set<Integer>> pending = new HashMap<>();
            /** Broker -> that first registration's epoch. */
            Map<Integer, Long> registeredAfterCrash = new HashMap<>();
            /**
             * Brokers judged now: an incarnation registered after the crash is unfenced, so it could
             * be elected from an ELR. A registration that is never unfenced (one sent before the
             * crash and answered late by a paused controller, say) could not lead and is not judged.
             */
            Set<Integer> active = new HashSet<>();
            Set<String> reported = new HashSet<>();
            // The unclean stop is the running process's; the process judged is the next one started
            // (a process whose own disk failed before it registered still registered truthfully).
            Set<Integer> stoppedUncleanly = new HashSet<>();
            for (HistoryEvent e : events) {
                if (e instanceof HistoryEvent.Fault f && UNCLEAN_STOPS.contains(f.kind())
                        && !Boolean.TRUE.equals(f.params().get("markerInPlace"))) {
                    stoppedUncleanly.addAll(f.brokers());
                } else if (e instanceof HistoryEvent.Fault f && f.kind().equals("restart")) {
                    for (int b : f.brokers()) {
                        if (stoppedUncleanly.remove(b)) {
                            crashed.add(b);
                        }
                    }
                } else if (e instanceof HistoryEvent.Broker b) {
                    int broker = b.broker();
                    Long before = epochs.put(broker, b.epoch());
                    if (before != null && before != b.epoch() && crashed.remove(broker)) {
                        Set<Integer> partitions = new HashSet<>();
                        for (ControllerState c : latest.values()) {
                            partitions.add(c.partition());
                        }
                        pending.put(broker, partitions);
                        registeredAfterCrash.put(broker, b.epoch());
                        active.remove(broker);
                    }
                    Long floor = registeredAfterCrash.get(broker);
                    if (floor != null && !b.fenced() && b.epoch() >= floor && active.add(broker)) {
                        for (ControllerState c : latest.values()) {
                            elrCheck(broker, c, pending, active, reported);
                        }
                    }
                } else if (e instanceof ControllerState c) {
                    latest.put(c.partition(), c);
                    for (int broker : List.copyOf(pending.keySet())) {
                        elrCheck(broker, c, pending, active, reported);
                    }
                }
            }
        }

        private void elrCheck(int broker, ControllerState c, Map<Integer, Set<Integer>> pending, Set<Integer> active,
                              Set<String> reported) {
            Set<Integer> partitions = pending.get(broker);
            if (partitions == null || !partitions.contains(c.partition())) {
                return;
            }
            if (c.isr().contains(broker)) {
                partitions.remove(c.partition());
            } else if (active.contains(broker) && c.elr().contains(broker)
                    && reported.add(broker + "/" + c.partition() + "/" + c.partitionEpoch())) {
                out.add(new Violation("LDR-5", c.t(), "broker " + broker + " restarted after a crash but is in the ELR "
                        + c.elr() + " of partition " + c.partition() + " (partition epoch " + c.partitionEpoch()
                        + ") while unfenced"));
            }
        }

        // ------------------------------------------------------------------ LOG-8

        /**
         * LOG-8 at the end: each broker's leader-epoch cache (its last sample) describes its final
         * log: the same epochs, each starting where the log's first batch of that epoch starts (the
         * first entry may start lower, at the log start; a last entry at the LEO is an epoch with no
         * records yet).
         */
        private void checkEpochCachesMatchFinalLogs() {
            Map<String, Sample> last = new HashMap<>();
            for (HistoryEvent e : events) {
                if (e instanceof Sample s) {
                    last.put(s.partition() + "/" + s.broker(), s);
                }
            }
            for (List<Final> logs : finals.values()) {
                for (Final f : logs) {
                    Sample s = last.get(f.partition() + "/" + f.broker());
                    if (s == null || !s.up() || s.leo() != f.leo() || excusedPartitions.contains(f.partition())) {
                        continue;
                    }
                    List<EpochStart> derived = new ArrayList<>();
                    for (LogEntry entry : f.log()) {
                        if (derived.isEmpty() || derived.get(derived.size() - 1).epoch() != entry.epoch()) {
                            derived.add(new EpochStart(entry.epoch(), entry.offset()));
                        }
                    }
                    List<EpochStart> cache = new ArrayList<>(s.epochs());
                    while (!cache.isEmpty() && cache.get(cache.size() - 1).startOffset() >= f.leo()) {
                        cache.remove(cache.size() - 1);
                    }
                    if (!matches(cache, derived)) {
                        out.add(new Violation("LOG-8", -1, "broker " + f.broker() + " partition " + f.partition()
                                + ": epoch cache " + format(s.epochs()) + " does not describe its final log, whose epochs start at "
                                + format(derived)));
                    }
                }
            }
        }

        private static boolean matches(List<EpochStart> cache, List<EpochStart> derived) {
            if (cache.size() != derived.size()) {
                return false;
            }
            for (int i = 0; i < cache.size(); i++) {
                EpochStart c = cache.get(i);
                EpochStart d = derived.get(i);
                if (c.epoch() != d.epoch() || (i == 0 ? c.startOffset() > d.startOffset() : c.startOffset() != d.startOffset())) {
                    return false;
                }
            }
            return true;
        }

        private static String format(List<EpochStart> entries) {
            StringBuilder sb = new StringBuilder("[");
            for (EpochStart e : entries) {
                sb.append(sb.length() > 1 ? ", " : "").append('(').append(e.epoch()).append(", ").append(e.startOffset()).append(')');
            }
            return sb.append(']').toString();
        }

        // ------------------------------------------------------------------ LIVENESS

        private void checkLiveness() {
            if (quiesce == null) {
                return;
            }
            Config config = configs.isEmpty() ? null : configs.get(configs.size() - 1);
            if (config == null) {
                return;
            }
            long deadline = quiesce.t() + quiesce.boundMs();
            Map<Integer, Long> wholeAt = new TreeMap<>();
            Map<Integer, ControllerState> controller = new HashMap<>();
            Map<String, Sample> current = new HashMap<>();
            boolean afterQuiesce = false;
            for (HistoryEvent e : events) {
                if (e == quiesce) {
                    afterQuiesce = true;
                }
                if (e instanceof ControllerState c) {
                    controller.put(c.partition(), c);
                } else if (e instanceof Sample s) {
                    current.put(s.partition() + "/" + s.broker(), s);
                } else if (e != quiesce) {
                    continue;
                }
                // The state as of the latest samples: judged at the quiesce line and after every later sample.
                if (!afterQuiesce || e.t() > deadline) {
                    continue;
                }
                for (int p = 0; p < config.partitions(); p++) {
                    int partition = p;
                    ControllerState c = controller.get(p);
                    if (!wholeAt.containsKey(p) && c != null && whole(Set.copyOf(config.replicasOf(p)), c.leader(),
                            c.leaderEpoch(), c.isr(), b -> current.get(partition + "/" + b))) {
                        wholeAt.put(p, e.t());
                    }
                }
            }
            for (int p = 0; p < config.partitions(); p++) {
                ControllerState last = lastController.get(p);
                if (!wholeAt.containsKey(p)) {
                    String state = last == null ? "no controller state" : "leader " + last.leader() + " epoch "
                            + last.leaderEpoch() + " ISR " + last.isr() + " ELR " + last.elr();
                    Violation v = new Violation("LIVENESS", deadline, "partition " + p + " not whole within "
                            + quiesce.boundMs() + " ms after the faults healed at t=" + quiesce.t() + "ms: " + state);
                    if (!config.unclean() && last != null && last.leader() < 0 && last.isr().isEmpty() && last.elr().isEmpty()) {
                        // No clean ISR/ELR member is left and unclean election is off: Kafka promises nothing.
                        excused.add(v);
                        excusedPartitions.add(p);
                    } else {
                        out.add(v);
                    }
                    continue;
                }
                if (!probeSucceeded(p, wholeAt.get(p))) {
                    out.add(new Violation("LIVENESS", wholeAt.get(p), "partition " + p + " was whole at t="
                            + wholeAt.get(p) + "ms but no acks=all probe write invoked afterwards succeeded"));
                }
            }
        }

        private boolean probeSucceeded(int partition, long wholeAtMs) {
            Map<Long, ProduceInvoke> probes = new LinkedHashMap<>();
            for (ProduceInvoke inv : invokes.values()) {
                if (PROBE_CLIENT.equals(inv.client()) && inv.partition() == partition && "all".equals(inv.acks())
                        && inv.t() >= wholeAtMs) {
                    probes.put(inv.id(), inv);
                }
            }
            for (HistoryEvent e : events) {
                if (e instanceof ProduceOk ok && probes.containsKey(ok.id())) {
                    return true;
                }
            }
            return false;
        }
    }
}
