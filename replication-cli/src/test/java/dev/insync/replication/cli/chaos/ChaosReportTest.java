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

import dev.insync.replication.testkit.history.History;
import dev.insync.replication.testkit.history.HistoryEvent.ControllerState;
import dev.insync.replication.testkit.history.HistoryEvent.Fault;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceFail;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceInvoke;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceOk;
import dev.insync.replication.testkit.history.InvariantChecker;
import dev.insync.replication.testkit.history.Json;
import dev.insync.replication.testkit.history.Verdict;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The chaos report's windows, from a history shaped like seed 11's stall (a paused controller, then every broker fenced). */
class ChaosReportTest {

    private static final String NO_LEADER = "p2-0: REQUEST_TIMED_OUT (written: NO): not sent within delivery.timeout.ms"
            + " (20000 ms) after 1 attempts; no leader known for chaos-2 (the last Metadata answer named none)";

    private static History history() {
        History h = new History();
        h.add(new ProduceInvoke(100, 1, "p1", 0, "all", "p1-0", 5000, 25000));
        h.add(new ProduceOk(150, 1, 0, 0));
        h.add(new ControllerState(1000, 0, 2, 4, 12, List.of(1, 2, 3), List.of(), List.of(), false, false));
        h.add(new Fault(2000, "controller-pause", List.of(1002), Map.of("active", true)));
        h.add(new ProduceInvoke(5000, 2, "p2", 2, "all", "p2-0", 5000, 25000));
        h.add(new Fault(5100, "controller-resume", List.of(1002), Map.of()));
        h.add(new ControllerState(5300, 0, -1, 5, 13, List.of(), List.of(2, 3), List.of(), false, false));
        h.add(new ProduceFail(25000, 2, "REQUEST_TIMED_OUT"));
        h.add(new ProduceInvoke(25100, 3, "p1", 0, "all", "p1-1", 5000, 25000));
        h.add(new ProduceInvoke(25110, 4, InvariantChecker.PROBE_CLIENT, 0, "all", "probe", 5000, 25000));
        h.add(new ProduceOk(25200, 3, 1, 5));
        h.add(new ProduceOk(25210, 4, 2, 5));
        h.add(new Fault(31000, "kill", List.of(3), Map.of()));
        return h;
    }

    private static ChaosReport report() {
        ChaosSettings settings = new ChaosSettings(40, 11, Set.of(), 3, 3, 3, Optional.empty(), Optional.empty());
        return ChaosReport.of(settings, history(), new Verdict(List.of(), List.of()), Map.of(), 0, 40_000, Map.of(),
                Map.of(2L, NO_LEADER));
    }

    @Test
    @DisplayName("CHS-1 each window over 5 s without an acks=all success comes with the faults before and during it, the"
            + " calls outstanding in it with the client's own words, and the controller's view; longest first")
    void windowsExplainThemselves() {
        ChaosReport r = report();
        assertThat(r.windowsOver5s()).isEqualTo(2);
        assertThat(r.longestUnavailableMs()).isEqualTo(25_050);
        assertThat(r.windows()).extracting(ChaosReport.Window::fromMs, ChaosReport.Window::toMs)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(150L, 25_200L),
                        org.assertj.core.groups.Tuple.tuple(25_200L, 40_000L));

        ChaosReport.Window stall = r.windows().get(0);
        assertThat(stall.faults()).containsExactly("t=2000 controller-pause [1002] {active=true}",
                "t=5100 controller-resume [1002]");
        assertThat(stall.calls()).as("the probe and the success that opens the window are not listed").containsExactly(
                "p2 partition 2 t=5000..25000 (20000 ms) REQUEST_TIMED_OUT: " + NO_LEADER,
                "p1 partition 0 t=25100..25200 (100 ms) ok at offset 1 (epoch 5)");
        assertThat(stall.controller()).containsExactly(
                "t=1000 partition 0: leader 2 epoch 4, partition epoch 12, isr [1, 2, 3]",
                "t=5300 partition 0: leader -1 epoch 5, partition epoch 13, isr [], elr [2, 3]");
        ChaosReport.Window tail = r.windows().get(1);
        assertThat(tail.faults()).containsExactly("t=31000 kill [3]");
        assertThat(tail.calls()).isEmpty();
        assertThat(tail.controller()).containsExactly("t=5300 partition 0: leader -1 epoch 5, partition epoch 13, isr [], elr [2, 3]");
    }

    @Test
    @DisplayName("CHS-1 the windows are in the text report and in its JSON")
    void windowsInTextAndJson() {
        ChaosReport r = report();
        assertThat(r.lines()).contains("window without an acks=all success: t=150..25200 ms (25050 ms)",
                "  fault t=2000 controller-pause [1002] {active=true}",
                "  call p2 partition 2 t=5000..25000 (20000 ms) REQUEST_TIMED_OUT: " + NO_LEADER,
                "  controller t=5300 partition 0: leader -1 epoch 5, partition epoch 13, isr [], elr [2, 3]");
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) Json.read(r.json());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> windows = (List<Map<String, Object>>) json.get("windows");
        assertThat(windows).hasSize(2);
        assertThat(windows.get(0)).containsEntry("fromMs", 150L).containsEntry("toMs", 25_200L).containsEntry("ms", 25_050L);
        assertThat(windows.get(0).get("calls")).asList().hasSize(2);
    }
}
