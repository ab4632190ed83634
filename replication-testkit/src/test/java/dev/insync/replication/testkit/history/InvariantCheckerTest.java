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
import dev.insync.replication.testkit.history.HistoryEvent.Fault;
import dev.insync.replication.testkit.history.HistoryEvent.Final;
import dev.insync.replication.testkit.history.HistoryEvent.LogEntry;
import dev.insync.replication.testkit.history.HistoryEvent.PollDone;
import dev.insync.replication.testkit.history.HistoryEvent.PollInvoke;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceFail;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceInvoke;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceOk;
import dev.insync.replication.testkit.history.HistoryEvent.Quiesce;
import dev.insync.replication.testkit.history.HistoryEvent.Sample;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Each invariant on small hand-written histories; {@link HistoryFileCheckTest} does it on real, written files. */
class InvariantCheckerTest {

    private final InvariantChecker checker = new InvariantChecker();

    private static List<LogEntry> log(String... values) {
        List<LogEntry> entries = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            entries.add(new LogEntry(i, 0, values[i]));
        }
        return entries;
    }

    private static ProduceInvoke invoke(long t, long id, String acks, String value) {
        return new ProduceInvoke(t, id, "p1", 0, acks, value, 30_000, 31_000);
    }

    private static History healthy() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1, 2, 3), false));
        h.add(invoke(10, 1, "all", "v1"));
        h.add(new ProduceOk(15, 1, 0, 0));
        h.add(invoke(20, 2, "1", "v2"));
        h.add(new ProduceOk(21, 2, 1, 0));
        h.add(new PollInvoke(30, 1, "c1", 0, 0, 1, 2_000));
        h.add(new Consume(31, 1, "c1", 0, 0, "v1"));
        h.add(new PollDone(31, 1, "NONE", 1, 1));
        return h;
    }

    private static void finals(History h, List<LogEntry> b1, List<LogEntry> b2, List<LogEntry> b3) {
        h.add(new Final(1, b1.size(), b1.size(), b1));
        h.add(new Final(2, b2.size(), b2.size(), b2));
        h.add(new Final(3, b3.size(), b3.size(), b3));
    }

    private static Sample sample(long t, int broker, boolean leader, int epoch, List<Integer> isr, long hw, long leo,
                                 List<EpochStart> epochs) {
        return new Sample(t, broker, 0, 1, HistoryEvent.RUNNING, leader, epoch, isr, hw, leo, 0, epochs);
    }

    private List<String> invariants(History h) {
        return checker.violations(h).stream().map(Violation::invariant).toList();
    }

    @Test
    @DisplayName("a healthy history has no violations")
    void healthyHistory() {
        History h = healthy();
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        assertThat(checker.violations(h)).isEmpty();
    }

    @Test
    @DisplayName("INV-1 INV-2 an acknowledged acks=all record, or a consumed one, missing from a final log is a violation")
    void inv1LostAckedRecord() {
        History h = healthy();
        finals(h, log("x", "v2"), log("x", "v2"), log("x", "v2"));
        assertThat(invariants(h)).contains("INV-1", "INV-2");
    }

    @Test
    @DisplayName("INV-1 does not protect records while min ISR is 1")
    void inv1NotProtectedUnderMinIsrOne() {
        History h = new History();
        h.add(new Config(0, 1, List.of(1, 2, 3), false));
        h.add(invoke(10, 1, "all", "v1"));
        h.add(new ProduceOk(15, 1, 0, 0));
        finals(h, log("x"), log("x"), log("x"));
        assertThat(checker.violations(h)).isEmpty();
    }

    @Test
    @DisplayName("INV-1 is excused only from an unclean election on: records acknowledged after it are protected again")
    void inv1ExcusedOnlyFromTheUncleanElection() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1, 2, 3), true));
        h.add(invoke(10, 1, "all", "before"));
        h.add(new ProduceOk(15, 1, 0, 0));
        h.add(new ControllerState(20, 0, 3, 1, 5, List.of(3), List.of(), List.of(), true, true));
        h.add(invoke(30, 2, "all", "after"));
        h.add(new ProduceOk(35, 2, 0, 1));
        List<LogEntry> lost = List.of(new LogEntry(0, 1, "other"));
        h.add(new Final(1, 0, 1, 1, 0, lost));
        h.add(new Final(2, 0, 1, 1, 0, lost));
        h.add(new Final(3, 0, 1, 1, 0, lost));
        List<Violation> v = checker.violations(h);
        assertThat(v).extracting(Violation::invariant).containsOnly("INV-1");
        assertThat(v).allMatch(x -> x.detail().contains("'after'"));
    }

    @Test
    @DisplayName("INV-1 an acknowledgement in a leader epoch below an unclean election's, given after it by a deposed"
            + " leader that has not heard of it, is excused; one in the unclean leader's epoch is not (simulation seed"
            + " 7502337)")
    void inv1DeposedLeaderAcknowledgesInAnOlderEpochAfterAnUncleanElection() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1, 2, 3), true));
        // Broker 1 led epoch 3 with ISR [1, 2]; both were cut off from the controller, which elected 3 uncleanly.
        h.add(new ControllerState(20, 0, 3, 5, 9, List.of(3), List.of(), List.of(), true, true));
        h.add(invoke(30, 1, "all", "zombie"));
        h.add(new ProduceOk(35, 1, 0, 3));
        h.add(invoke(40, 2, "all", "legitimate"));
        h.add(new ProduceOk(45, 2, 1, 5));
        List<LogEntry> unclean = List.of(new LogEntry(0, 5, "other"), new LogEntry(1, 5, "other2"));
        h.add(new Final(1, 0, 2, 2, 0, unclean));
        h.add(new Final(2, 0, 2, 2, 0, unclean));
        h.add(new Final(3, 0, 2, 2, 0, unclean));
        List<Violation> v = checker.violations(h);
        assertThat(v).extracting(Violation::invariant).containsOnly("INV-1");
        assertThat(v).allMatch(x -> x.detail().contains("'legitimate'")).hasSize(3);
    }

    @Test
    @DisplayName("INV-1 with unclean election enabled but never used, nothing is excused")
    void inv1NotExcusedByTheSettingAlone() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1, 2, 3), true));
        h.add(invoke(10, 1, "all", "v1"));
        h.add(new ProduceOk(15, 1, 0, 0));
        finals(h, log("x"), log("x"), log("x"));
        assertThat(invariants(h)).containsOnly("INV-1");
    }

    @Test
    @DisplayName("INV-1 records below a final log's start were removed by retention and are not required there")
    void inv1RetentionRemovedRecords() {
        History h = healthy();
        List<LogEntry> tail = List.of(new LogEntry(1, 0, "v2"));
        h.add(new Final(1, 0, 2, 2, 1, tail));
        h.add(new Final(2, 0, 2, 2, 1, tail));
        h.add(new Final(3, 0, 2, 2, 1, tail));
        assertThat(checker.violations(h)).isEmpty();
    }

    @Test
    @DisplayName("INV-2 a consumed record that changed is a violation")
    void inv2ConsumedChanged() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1, 2, 3), false));
        h.add(new PollInvoke(30, 1, "c1", 0, 0, 1, 2_000));
        h.add(new Consume(30, 1, "c1", 0, 0, "v1"));
        h.add(new PollDone(30, 1, "NONE", 1, 1));
        finals(h, log("other"), log("other"), log("other"));
        assertThat(invariants(h)).containsExactly("INV-2", "INV-2", "INV-2");
    }

    @Test
    @DisplayName("INV-2 a poll that starts past where the previous one left the consumer means records the history never saw")
    void inv2ConsumerSkippedRecords() {
        History h = healthy();
        h.add(new PollInvoke(40, 2, "c1", 0, 2, 1, 2_000));
        h.add(new PollDone(41, 2, "NONE", 0, 2));
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        List<Violation> v = checker.violations(h);
        assertThat(v).extracting(Violation::invariant).containsExactly("INV-2");
        assertThat(v.get(0).detail()).contains("starts at offset 2").contains("left it at 1");
    }

    @Test
    @DisplayName("INV-3 diverged final logs are a violation")
    void inv3Diverged() {
        History h = healthy();
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "zz"));
        assertThat(invariants(h)).containsExactly("INV-3");
    }

    @Test
    @DisplayName("INV-4 a leader HW that goes down within an epoch, or any HW above its LEO, is a violation")
    void inv4HwDown() {
        History h = healthy();
        h.add(sample(100, 1, true, 0, List.of(1, 2, 3), 5, 6, List.of()));
        h.add(sample(200, 1, true, 0, List.of(1, 2, 3), 4, 6, List.of()));
        h.add(sample(300, 2, false, 0, List.of(), 7, 6, List.of()));
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        assertThat(invariants(h)).containsExactly("INV-4", "INV-4");
    }

    @Test
    @DisplayName("INV-5 a produce call that never completes, or completes twice, is a violation")
    void inv5Completion() {
        History h = healthy();
        h.add(invoke(40, 3, "all", "v3"));
        h.add(new ProduceFail(41, 2, "REQUEST_TIMED_OUT"));
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        assertThat(invariants(h)).containsExactly("INV-5", "INV-5");
    }

    @Test
    @DisplayName("INV-5 a produce call that completes after the deadline it was invoked with is a violation")
    void inv5Late() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1), false));
        h.add(new ProduceInvoke(0, 1, "p1", 0, "1", "v1", 5_000, 5_500));
        h.add(new ProduceFail(5_501, 1, "REQUEST_TIMED_OUT"));
        assertThat(invariants(h)).containsExactly("INV-5");
    }

    @Test
    @DisplayName("INV-7 an ISR member below the leader's HW at one sampling instant is a violation")
    void inv7() {
        History h = healthy();
        h.add(sample(100, 1, true, 0, List.of(1, 2), 5, 6, List.of()));
        h.add(sample(100, 2, false, 0, List.of(), 3, 3, List.of()));
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        assertThat(invariants(h)).containsExactly("INV-7");
    }

    @Test
    @DisplayName("INV-7 a deposed leader's stale view is not judged from the instant of the unclean election that replaced it, "
            + "though the recorder writes that instant's controller line after its samples")
    void inv7UncleanElectionAtTheSameInstant() {
        History h = healthy();
        // Leader 1 of epoch 0 is paused with its old view; broker 2 already follows epoch 1, truncated
        // below leader 1's HW by the unclean election of broker 3, written after the samples.
        h.add(sample(100, 1, true, 0, List.of(1, 2), 5, 6, List.of()));
        h.add(sample(100, 2, false, 1, List.of(), 3, 3, List.of()));
        h.add(new ControllerState(100, 0, 3, 1, 2, List.of(3), List.of(), List.of(), true, true));
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        assertThat(invariants(h)).doesNotContain("INV-7");

        // The same instant without the election: leader 1's view is judged.
        History clean = new History();
        h.events().stream().filter(e -> !(e instanceof ControllerState c && c.unclean())).forEach(clean::add);
        assertThat(invariants(clean)).contains("INV-7");
    }

    @Test
    @DisplayName("INV-7 a member's latest sample counts at later instants: samples are written only when state changes")
    void inv7LatestSampleCounts() {
        History h = healthy();
        h.add(sample(100, 1, true, 0, List.of(1, 2), 3, 6, List.of()));
        h.add(sample(100, 2, false, 0, List.of(), 3, 3, List.of()));
        h.add(sample(200, 1, true, 0, List.of(1, 2), 5, 6, List.of())); // broker 2 unchanged since t=100
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        assertThat(checker.violations(h)).extracting(Violation::invariant, Violation::t).containsExactly(
                org.assertj.core.groups.Tuple.tuple("INV-7", 200L));
    }

    @Test
    @DisplayName("INV-7 a member that restarted after the controller elected the leader is not judged, though the leader's"
            + " first sample in that epoch comes after the restart; a member that did not restart is")
    void inv7EpochBeginsAtTheElection() {
        assertThat(invariants(leaderSampledLate(2))).doesNotContain("INV-7");
        assertThat(invariants(leaderSampledLate(1))).contains("INV-7");
    }

    @Test
    @DisplayName("INV-7 a member that restarted before a paused controller elected the leader, still listed in its ISR, is"
            + " judged by the incarnation that joined the ISR")
    void inv7MemberJudgedByTheIncarnationThatJoined() {
        History h = healthy();
        h.add(new Sample(100, 3, 0, 1, HistoryEvent.RUNNING, false, 0, List.of(), 2, 2, 0, List.of()));
        h.add(new ControllerState(100, 0, 1, 0, 1, List.of(1, 2, 3), List.of(), List.of(), false, false));
        h.add(new Sample(200, 3, 0, 2, HistoryEvent.RUNNING, false, 0, List.of(), 0, 0, 0, List.of()));
        // One instant: the new leader's stale view, then the controller's backlog (election, then 3's registration).
        h.add(new Sample(300, 2, 0, 1, HistoryEvent.RUNNING, true, 1, List.of(2, 3), 2, 2, 0, List.of()));
        h.add(new ControllerState(300, 0, 2, 1, 2, List.of(2, 3), List.of(), List.of(), false, false));
        h.add(new ControllerState(300, 0, 2, 1, 3, List.of(2), List.of(), List.of(), false, false));
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        assertThat(invariants(h)).doesNotContain("INV-7");
    }

    @Test
    @DisplayName("INV-7 an ISR expansion the controller commits while the member's new process holds no replica yet (it"
            + " lost power after the leader proposed it, the controller was down) is judged by the incarnation that"
            + " fetched its way in; one committed while that process holds the replica is judged by it (simulation seed"
            + " 7200072)")
    void inv7LateExpansionOfARestartedMember() {
        assertThat(invariants(lateExpansion(HistoryEvent.ABSENT))).doesNotContain("INV-7");
        assertThat(invariants(lateExpansion(HistoryEvent.RUNNING))).contains("INV-7");
    }

    /**
     * Leader 3 (HW 5) proposes broker 2 after its incarnation 1 caught up; 2 loses power and its
     * incarnation 2 starts ({@code statusAtCommit} at t=300, when the controller commits the
     * expansion); at t=400 incarnation 2 holds the replica with 2 records and leader 3's stale view
     * still lists it.
     */
    private static History lateExpansion(String statusAtCommit) {
        History h = healthy();
        h.add(new Sample(100, 2, 0, 1, HistoryEvent.RUNNING, false, 0, List.of(), 5, 5, 0, List.of()));
        h.add(new Sample(100, 3, 0, 1, HistoryEvent.RUNNING, true, 0, List.of(3, 2), 5, 5, 0, List.of()));
        h.add(new Sample(200, 2, 0, 1, HistoryEvent.DOWN, false, -1, List.of(), -1, -1, -1, List.of()));
        boolean holds = HistoryEvent.RUNNING.equals(statusAtCommit);
        h.add(new Sample(300, 2, 0, 2, statusAtCommit, false, holds ? 0 : -1, List.of(), holds ? 2 : -1, holds ? 2 : -1,
                holds ? 0 : -1, List.of()));
        h.add(new ControllerState(300, 0, 3, 0, 2, List.of(2, 3), List.of(), List.of(), false, false));
        h.add(new Sample(400, 2, 0, 2, HistoryEvent.RUNNING, false, 0, List.of(), 2, 2, 0, List.of()));
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        return h;
    }

    /** Broker 2 is elected at t=100 while broker 3 runs incarnation 1; at t=300 3 runs {@code laterIncarnation}, empty. */
    private static History leaderSampledLate(int laterIncarnation) {
        History h = healthy();
        h.add(new Sample(100, 3, 0, 1, HistoryEvent.RUNNING, false, 0, List.of(), 2, 2, 0, List.of()));
        h.add(new ControllerState(100, 0, 2, 1, 1, List.of(2, 3), List.of(), List.of(), false, false));
        h.add(new Sample(200, 3, 0, laterIncarnation, HistoryEvent.RUNNING, false, 1, List.of(), 0, 0, 0, List.of()));
        // Broker 2, cut from the controller until now, shows its election for the first time, with its stale ISR.
        h.add(new Sample(300, 2, 0, 1, HistoryEvent.RUNNING, true, 1, List.of(2, 3), 2, 2, 0, List.of()));
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        return h;
    }

    @Test
    @DisplayName("INV-8 two leaders in one epoch, or a non-increasing epoch cache, are violations")
    void inv8() {
        History h = healthy();
        h.add(sample(100, 1, true, 3, List.of(1), 0, 0, List.of(new EpochStart(0, 0), new EpochStart(3, 0))));
        h.add(sample(100, 2, true, 3, List.of(2), 0, 0, List.of()));
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        assertThat(invariants(h)).containsExactly("INV-8", "INV-8");
    }

    @Test
    @DisplayName("LOG-8 an epoch cache that does not describe the final log is a violation")
    void log8() {
        History h = healthy();
        List<LogEntry> log = List.of(new LogEntry(0, 0, "v1"), new LogEntry(1, 2, "v2"));
        h.add(sample(100, 1, true, 2, List.of(1, 2, 3), 2, 2, List.of(new EpochStart(0, 0), new EpochStart(2, 1))));
        h.add(sample(100, 2, false, 2, List.of(), 2, 2, List.of(new EpochStart(2, 1))));
        h.add(sample(100, 3, false, 2, List.of(), 2, 2,
                List.of(new EpochStart(0, 0), new EpochStart(2, 1), new EpochStart(3, 2))));
        h.add(new Final(1, 0, 2, 2, 0, log));
        h.add(new Final(2, 0, 2, 2, 0, log));
        h.add(new Final(3, 0, 2, 2, 0, log));
        List<Violation> v = checker.violations(h);
        // Broker 3's trailing (3, 2) is an epoch with no records yet at the LEO: fine.
        assertThat(v).extracting(Violation::invariant).containsExactly("LOG-8");
        assertThat(v.get(0).detail()).startsWith("broker 2 ");
    }

    @Test
    @DisplayName("LDR-5 a broker that crashed must not be in an ELR after it registers again, until it rejoins the ISR")
    void ldr5() {
        History h = ldr5History(List.of(3));
        History clean = ldr5History(List.of());
        assertThat(invariants(h)).containsExactly("LDR-5");
        assertThat(invariants(clean)).isEmpty();
    }

    @Test
    @DisplayName("LDR-5 a broker whose disk failed (disk-offline) or was swapped (disk-replace) must not be in an ELR"
            + " after it registers again; a disk fault that failed nothing before a clean stop is not a crash")
    void ldr5AfterDiskFaults() {
        assertThat(invariants(ldr5History(List.of(3), "disk-offline"))).containsExactly("LDR-5");
        assertThat(invariants(ldr5History(List.of(3), "disk-replace"))).containsExactly("LDR-5");
        assertThat(invariants(ldr5History(List.of(), "disk-offline"))).isEmpty();
        // Armed but never failed, then a controlled shutdown: the marker was written, the restart is clean.
        assertThat(invariants(ldr5History(List.of(3), "disk"))).isEmpty();
    }

    @Test
    @DisplayName("LDR-5 a disk whose first failure is the directory fsync after the clean-shutdown marker's rename"
            + " (markerInPlace) left a true marker: the broker may stay in the ELR; any other disk-offline may not")
    void ldr5MarkerInPlace() {
        History inPlace = ldr5History(List.of(3), "disk-offline", true);
        History notInPlace = ldr5History(List.of(3), "disk-offline", false);
        assertThat(invariants(inPlace)).isEmpty();
        assertThat(invariants(notInPlace)).containsExactly("LDR-5");
    }

    @Test
    @DisplayName("LDR-5 a registration that is never unfenced (sent before the crash, answered late by a paused controller) is not judged; "
            + "the unfenced incarnation after it is")
    void ldr5LateRegistrationOfADeadProcess() {
        History h = new History();
        h.add(new Config(0, 3, List.of(1, 2, 3), false));
        h.add(new HistoryEvent.Broker(0, 3, 5, false, false));
        h.add(new Fault(10, "shutdown-done", List.of(3)));
        h.add(new ControllerState(10, 0, 1, 0, 2, List.of(1, 2), List.of(3), List.of(), false, false));
        h.add(new Fault(20, "restart", List.of(3)));
        // The controller is paused: the new process's clean registration waits there; the process loses power.
        h.add(new Fault(30, "power", List.of(3)));
        h.add(new Fault(40, "restart", List.of(3)));
        // The controller resumes: the dead process's clean registration (epoch 9, never unfenced), then the
        // new process's unclean one (10), which removes broker 3 from the ELR before it is unfenced.
        h.add(new HistoryEvent.Broker(50, 3, 9, true, false));
        h.add(new ControllerState(50, 0, 1, 0, 3, List.of(1, 2), List.of(), List.of(3), false, false));
        h.add(new HistoryEvent.Broker(50, 3, 10, true, false));
        h.add(new HistoryEvent.Broker(60, 3, 10, false, false));
        assertThat(invariants(h)).isEmpty();

        // Had the unclean registration left it in the ELR, its unfencing is judged.
        History kept = new History();
        h.events().stream().filter(e -> !(e instanceof ControllerState c && c.t() == 50)).forEach(kept::add);
        assertThat(invariants(kept)).containsExactly("LDR-5");
    }

    @Test
    @DisplayName("LDR-5 a process whose own disk failed before it registered registers truthfully; the next process started is judged")
    void ldr5DiskFailedBeforeRegistration() {
        History h = new History();
        h.add(new Config(0, 3, List.of(1, 2, 3), false));
        h.add(new HistoryEvent.Broker(0, 3, 5, false, false));
        h.add(new Fault(10, "shutdown-done", List.of(3)));
        h.add(new ControllerState(10, 0, 1, 0, 2, List.of(1, 2), List.of(3), List.of(), false, false));
        h.add(new Fault(20, "restart", List.of(3)));
        h.add(new Fault(30, "disk-offline", List.of(3)));
        h.add(new HistoryEvent.Broker(40, 3, 9, true, false));
        h.add(new HistoryEvent.Broker(40, 3, 9, false, false));
        assertThat(invariants(h)).as("read its clean markers before its disk failed").isEmpty();
        h.add(new Fault(50, "kill", List.of(3)));
        h.add(new Fault(60, "restart", List.of(3)));
        h.add(new HistoryEvent.Broker(70, 3, 11, true, false));
        h.add(new HistoryEvent.Broker(70, 3, 11, false, false));
        assertThat(invariants(h)).as("the next process: its failed directory left no marker").containsExactly("LDR-5");
    }

    @Test
    @DisplayName("INV-2 a poll sent before an unclean election and answered after it by the deposed leader is excused like an earlier read")
    void inv2ZombieReadAfterUncleanElection() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1, 2, 3), true));
        h.add(new PollInvoke(10, 1, "c1", 0, 0, 1, 8_000));
        h.add(new ControllerState(20, 0, 3, 1, 5, List.of(3), List.of(), List.of(), true, true));
        h.add(new Consume(30, 1, "c1", 0, 0, "lost"));
        h.add(new PollDone(30, 1, "NONE", 1, 1));
        h.add(new PollInvoke(40, 2, "c1", 0, 1, 3, 2_000));
        h.add(new Consume(41, 2, "c1", 0, 1, "after"));
        h.add(new PollDone(41, 2, "NONE", 1, 2));
        List<LogEntry> kept = List.of(new LogEntry(0, 1, "other"), new LogEntry(1, 1, "after"));
        h.add(new Final(1, 0, 2, 2, 0, kept));
        h.add(new Final(2, 0, 2, 2, 0, kept));
        h.add(new Final(3, 0, 2, 2, 0, kept));
        assertThat(checker.violations(h)).isEmpty();

        // A read requested after the election is protected again.
        List<LogEntry> lost = List.of(new LogEntry(0, 1, "other"), new LogEntry(1, 1, "changed"));
        History later = new History();
        h.events().stream().filter(e -> !(e instanceof Final)).forEach(later::add);
        later.add(new Final(1, 0, 2, 2, 0, lost));
        later.add(new Final(2, 0, 2, 2, 0, lost));
        later.add(new Final(3, 0, 2, 2, 0, lost));
        assertThat(checker.violations(later)).extracting(Violation::detail).allMatch(d -> d.contains("'after'")).hasSize(3);
    }

    @Test
    @DisplayName("INV-2 a poll sent after an unclean election to the deposed leader, which has not heard of it, reads the history"
            + " as of its deposition; after a clean election the same read is protected")
    void inv2PollToADeposedLeaderAfterTheElection() {
        assertThat(checker.violations(readFromDeposedLeader(true))).isEmpty();
        assertThat(checker.violations(readFromDeposedLeader(false))).extracting(Violation::invariant)
                .containsExactly("INV-2", "INV-2", "INV-2");
    }

    /** Broker 1 leads, loses leadership to 3 ({@code unclean} or not), then answers a poll sent to it afterwards. */
    private static History readFromDeposedLeader(boolean unclean) {
        History h = new History();
        h.add(new Config(0, 2, List.of(1, 2, 3), true));
        h.add(new ControllerState(5, 0, 1, 0, 0, List.of(1, 2, 3), List.of(), List.of(), false, false));
        h.add(new ControllerState(20, 0, 3, 1, 5, List.of(3), List.of(), List.of(), unclean, unclean));
        h.add(new PollInvoke(40, 1, "c1", 0, 0, 1, 2_000)); // a cached leader, paused until now
        h.add(new Consume(41, 1, "c1", 0, 0, "lost"));
        h.add(new PollDone(41, 1, "NONE", 1, 1));
        List<LogEntry> kept = List.of(new LogEntry(0, 1, "other"));
        h.add(new Final(1, 0, 1, 1, 0, kept));
        h.add(new Final(2, 0, 1, 1, 0, kept));
        h.add(new Final(3, 0, 1, 1, 0, kept));
        return h;
    }

    /** Broker 3 loses power, its ELR membership from before, then its new registration with {@code elrAfter}. */
    private static History ldr5History(List<Integer> elrAfter) {
        return ldr5History(elrAfter, "power");
    }

    /** Broker 3 suffers {@code fault}, its ELR membership from before, then its new registration with {@code elrAfter}. */
    private static History ldr5History(List<Integer> elrAfter, String fault) {
        return ldr5History(elrAfter, fault, null);
    }

    /** As above; a non-null {@code markerInPlace} is the fault's parameter of that name. */
    private static History ldr5History(List<Integer> elrAfter, String fault, Boolean markerInPlace) {
        History h = new History();
        h.add(new Config(0, 3, List.of(1, 2, 3), false));
        h.add(new HistoryEvent.Broker(0, 3, 5, false, false));
        h.add(markerInPlace == null ? new Fault(10, fault, List.of(3))
                : new Fault(10, fault, List.of(3), java.util.Map.of("markerInPlace", markerInPlace)));
        h.add(new ControllerState(20, 0, 1, 0, 2, List.of(1, 2), List.of(3), List.of(), false, false));
        h.add(new Fault(25, "restart", List.of(3)));
        // One sampling instant: the registration's effect on the partition, then the registration.
        h.add(new ControllerState(30, 0, 1, 0, 3, List.of(1, 2), elrAfter, List.of(), false, false));
        h.add(new HistoryEvent.Broker(30, 3, 9, true, false));
        h.add(new HistoryEvent.Broker(40, 3, 9, false, false));
        return h;
    }

    @Test
    @DisplayName("LIVENESS after the quiesce line a partition must become whole and take an acks=all probe; with no ISR or ELR member left and unclean election off it is excused")
    void liveness() {
        History whole = new History();
        whole.add(new Config(0, 2, List.of(1, 2), false));
        whole.add(new ControllerState(0, 0, 1, 0, 0, List.of(1, 2), List.of(), List.of(), false, false));
        whole.add(sample(0, 1, true, 0, List.of(1, 2), 0, 0, List.of()));
        whole.add(sample(0, 2, false, 0, List.of(), 0, 0, List.of()));
        whole.add(new Quiesce(10, 1_000));
        History noProbe = copy(whole);
        whole.add(new ProduceInvoke(20, 1, InvariantChecker.PROBE_CLIENT, 0, "all", "probe", 5_000, 5_500));
        whole.add(new ProduceOk(25, 1, 0, 0));
        assertThat(checker.check(whole).violations()).isEmpty();
        assertThat(invariants(noProbe)).containsExactly("LIVENESS");

        History stuck = new History();
        stuck.add(new Config(0, 2, List.of(1, 2), false));
        stuck.add(new ControllerState(0, 0, 1, 0, 0, List.of(1), List.of(), List.of(), false, false));
        stuck.add(new Quiesce(10, 1_000));
        assertThat(invariants(stuck)).containsExactly("LIVENESS");

        History offline = new History();
        offline.add(new Config(0, 2, List.of(1, 2), false));
        offline.add(new ControllerState(0, 0, -1, 1, 3, List.of(), List.of(), List.of(1, 2), false, false));
        offline.add(new Quiesce(10, 1_000));
        Verdict verdict = checker.check(offline);
        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.excused()).extracting(Violation::invariant).containsExactly("LIVENESS");
    }

    @Test
    @DisplayName("INV-6 a history written as JSON lines parses back to the same events")
    void jsonLinesRoundTrip() {
        History h = healthy();
        h.add(new Fault(50, "cut", List.of(1, 3), Map.of("oneWay", true)));
        h.add(new Fault(51, "loss", List.of(), Map.of("dropProbability", 0.1)));
        h.add(sample(60, 1, true, 2, List.of(1, 2), 1, 2, List.of(new EpochStart(0, 0), new EpochStart(2, 1))));
        h.add(new ControllerState(61, 0, 1, 2, 7, List.of(1, 2), List.of(3), List.of(), false, false));
        h.add(new HistoryEvent.Broker(62, 3, 12, true, false));
        h.add(new Quiesce(70, 120_000));
        finals(h, log("v1", "v\"2\n"), log("v1"), log());
        String text = h.toJsonLines();
        assertThat(History.parse(text).events()).isEqualTo(h.events());
        assertThat(History.parse(text).toJsonLines()).isEqualTo(text);
        assertThat(text.lines().findFirst()).hasValue(
                "{\"t\":0,\"type\":\"config\",\"minIsr\":2,\"replicas\":[1,2,3],\"unclean\":false,\"partitions\":1}");
    }

    @Test
    @DisplayName("INV-6 a topic placed on some of more brokers than its replicas: the config line's assignment parses back,"
            + " and LIVENESS asks each partition for its own replicas in the ISR, not every broker")
    void perPartitionAssignment() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1, 2, 3, 4), false, 2, List.of(List.of(1, 2, 3), List.of(2, 3, 4))));
        h.add(new ControllerState(0, 0, 1, 0, 0, List.of(1, 2, 3), List.of(), List.of(), false, false));
        h.add(new ControllerState(0, 1, 2, 0, 0, List.of(2, 3, 4), List.of(), List.of(), false, false));
        for (int broker : List.of(1, 2, 3)) {
            h.add(new Sample(0, broker, 0, 1, HistoryEvent.RUNNING, broker == 1, 0, broker == 1 ? List.of(1, 2, 3) : List.of(),
                    0, 0, 0, List.of()));
        }
        for (int broker : List.of(2, 3, 4)) {
            h.add(new Sample(0, broker, 1, 1, HistoryEvent.RUNNING, broker == 2, 0, broker == 2 ? List.of(2, 3, 4) : List.of(),
                    0, 0, 0, List.of()));
        }
        h.add(new Quiesce(10, 1_000));
        h.add(new ProduceInvoke(20, 1, InvariantChecker.PROBE_CLIENT, 0, "all", "probe-0", 5_000, 5_500));
        h.add(new ProduceOk(25, 1, 0, 0));
        h.add(new ProduceInvoke(26, 2, InvariantChecker.PROBE_CLIENT, 1, "all", "probe-1", 5_000, 5_500));
        h.add(new ProduceOk(30, 2, 0, 0));

        String text = h.toJsonLines();
        assertThat(text.lines().findFirst()).hasValue("{\"t\":0,\"type\":\"config\",\"minIsr\":2,\"replicas\":[1,2,3,4],"
                + "\"unclean\":false,\"partitions\":2,\"assignment\":[[1,2,3],[2,3,4]]}");
        assertThat(History.parse(text).events()).isEqualTo(h.events());
        Config parsed = (Config) History.parse(text).events().get(0);
        assertThat(parsed.replicasOf(1)).containsExactly(2, 3, 4);
        assertThat(checker.check(h).violations()).isEmpty();

        // Partition 1 short of its own replica 4 is not whole, though its ISR is 1's replicas.
        History shortOfOne = new History();
        h.events().forEach(e -> shortOfOne.add(e instanceof ControllerState c && c.partition() == 1
                ? new ControllerState(0, 1, 2, 0, 0, List.of(2, 3), List.of(), List.of(), false, false) : e));
        assertThat(invariants(shortOfOne)).containsExactly("LIVENESS");

        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new Config(0, 2, List.of(1, 2), false, 3, List.of(List.of(1, 2))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("assignment of 1 partitions");
    }

    @Test
    @DisplayName("a malformed history line is refused with its line number")
    void malformedLine() {
        String text = healthy().toJsonLines() + "{\"t\":1,\"type\":\"produce-ok\",\"id\":\"x\"}\n";
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> History.parse(text))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 9");
    }

    private static History copy(History h) {
        History c = new History();
        h.events().forEach(c::add);
        return c;
    }
}
