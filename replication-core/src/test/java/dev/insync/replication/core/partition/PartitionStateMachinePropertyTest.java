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

package dev.insync.replication.core.partition;

import dev.insync.replication.core.ActionSequences;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.DelayedProduce;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.purgatory.DelayedOperationPurgatory;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogAppendInfo;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static dev.insync.replication.core.partition.PartitionFixture.TP;
import static dev.insync.replication.core.partition.PartitionFixture.registration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;

/**
 * A state-machine property over one leader partition (broker 1, replicas 1,2,3): random appends (acks=1 and
 * acks=all parked in a real produce purgatory), follower fetches at the follower's true LEO (each follower keeps
 * a random prefix of what it was sent, so the leader's knowledge may lag the truth), clock advances, shrink
 * checks, AlterPartition answers from a model controller (accepted, refused, stale, out of order), published
 * metadata and leader changes. After every step it checks HW-1..HW-4, HW-6, ISR-4 and PRO-3.
 */
class PartitionStateMachinePropertyTest {

    sealed interface Cmd permits Append, Fetch, Advance, Shrink, Answer, Publish, LeaderChange, Expire {
    }

    record Append(int records, int acks) implements Cmd {
    }

    record Fetch(int replicaId, int keepPercent) implements Cmd {
    }

    record Advance(int ms) implements Cmd {
    }

    record Shrink() implements Cmd {
    }

    /** Answer the {@code pick}-th unanswered proposal (mod count) with {@code kind}. */
    record Answer(int pick, Kind kind) implements Cmd {
    }

    enum Kind { CONTROLLER, INELIGIBLE, NOT_CONTROLLER, NOT_ATTEMPTED }

    record Publish() implements Cmd {
    }

    record LeaderChange() implements Cmd {
    }

    record Expire() implements Cmd {
    }

    static Gen<List<Cmd>> commands() {
        Gen<Cmd> append = integers().between(1, 4).zip(arbitrary().pick(-1, 1), Append::new);
        Gen<Cmd> fetch = arbitrary().pick(2, 3).zip(arbitrary().pick(0, 50, 100, 100), Fetch::new);
        Gen<Cmd> advance = integers().between(0, 4000).map(Advance::new);
        Gen<Cmd> answer = integers().between(0, 3).zip(arbitrary().enumValues(Kind.class), Answer::new);
        Gen<Cmd> any = Generate.frequency(List.of(
                Pair.of(5, append),
                Pair.of(8, fetch),
                Pair.of(3, advance),
                Pair.of(2, Generate.constant(new Shrink())),
                Pair.of(3, answer),
                Pair.of(1, Generate.constant(new Publish())),
                Pair.of(1, Generate.constant(new LeaderChange())),
                Pair.of(1, Generate.constant(new Expire()))));
        return ActionSequences.of(any, 1, 60);
    }

    /** Everything the property tracks besides the partition. */
    private static final class Model {
        final PartitionFixture f;
        final HeldTimer timer = new HeldTimer();
        final DelayedOperationPurgatory<DelayedProduce> purgatory = new DelayedOperationPurgatory<>("Produce", timer, 50);
        final Map<Integer, Long> trueLeo = new HashMap<>(Map.of(2, 0L, 3, 0L));
        final Set<Integer> answered = new HashSet<>();
        final List<String> violations = new ArrayList<>();
        final List<DelayedProduce> produces = new ArrayList<>();
        int ctrlLeaderEpoch = 0;
        int ctrlPartitionEpoch = 0;
        List<Integer> ctrlIsr = List.of(1, 2, 3);
        long lastHw = 0;

        Model(int minIsr) {
            f = new PartitionFixture(minIsr);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), ctrlIsr));
        }

        void wake() {
            purgatory.checkAndComplete(TP);
        }
    }

    @Test
    @DisplayName("HW-1 HW-2 HW-3 HW-4 HW-6 ISR-4 PRO-3 hold under random appends, fetches, shrinks, AlterPartition answers and leader changes")
    void partitionStateMachine() {
        qt().withExamples(120).forAll(integers().between(1, 3), commands()).checkAssert(this::run);
    }

    private void run(int minIsr, List<Cmd> cmds) {
        Model m = new Model(minIsr);
        for (Cmd cmd : cmds) {
            IsrState before = m.f.partition.isrState();
            long hwBefore = m.f.partition.highWatermark();
            step(m, cmd);
            check(m, cmd, before, hwBefore);
            assertThat(m.violations).as("after %s in %s", cmd, cmds).isEmpty();
        }
        // PRO-5: expiring what is left ends every produce exactly once
        m.timer.expireAll();
        for (DelayedProduce op : m.produces) {
            assertThat(op.result()).isDone();
        }
    }

    private static void step(Model m, Cmd cmd) {
        PartitionFixture f = m.f;
        if (cmd instanceof Append a) {
                try {
                    LogAppendInfo info = f.partition.appendAsLeader(InMemoryLocalLog.records(a.records()), Acks.forCode(a.acks())).info();
                    if (a.acks() == -1) {
                        long required = info.lastOffset() + 1;
                        DelayedProduce op = new DelayedProduce(30_000L, Map.of(TP, new DelayedProduce.PartitionWait(required,
                                new ProduceResult(Errors.NONE, info.firstOffset(), -1, 0))), tp -> Optional.of(f.partition));
                        // PRO-3: at the moment it completes with NONE, the HW and every maximal-ISR member's true LEO cover it
                        op.result().thenAccept(r -> {
                            if (r.get(TP).error() == Errors.NONE) {
                                if (f.partition.highWatermark() < required) {
                                    m.violations.add("PRO-3: acks=all for " + required + " done at HW " + f.partition.highWatermark());
                                }
                                for (int id : f.partition.isrState().maximalIsr()) {
                                    if (id != 1 && m.trueLeo.get(id) < required) {
                                        m.violations.add("PRO-3: acks=all for " + required + " done while ISR member " + id
                                                + " holds only " + m.trueLeo.get(id));
                                    }
                                }
                            }
                        });
                        m.produces.add(op);
                        m.purgatory.tryCompleteElseWatch(op, op.keys());
                    }
                    m.wake();
                } catch (ApiException e) {
                    assertThat(e.error()).isIn(Errors.NOT_ENOUGH_REPLICAS);
                }
        } else if (cmd instanceof Fetch fe) {
                long offset = m.trueLeo.get(fe.replicaId());
                PartitionFetchResult r = f.followerFetch(fe.replicaId(), offset);
                assertThat(r.data().error()).isEqualTo(Errors.NONE);
                int sent = r.data().records().sizeInBytes();
                m.trueLeo.put(fe.replicaId(), offset + (long) sent * fe.keepPercent() / 100);
                if (r.highWatermarkIncreased()) {
                    m.wake();
                }
        } else if (cmd instanceof Advance adv) {
            f.time.advance(adv.ms());
        } else if (cmd instanceof Shrink) {
            f.partition.maybeShrinkIsr();
        } else if (cmd instanceof Answer ans) {
            answer(m, ans);
        } else if (cmd instanceof Publish) {
                f.partition.makeLeader(registration(1, m.ctrlLeaderEpoch, m.ctrlPartitionEpoch, List.of(1, 2, 3), m.ctrlIsr));
                m.wake();
        } else if (cmd instanceof LeaderChange) {
                // broker 2 leads one epoch without writes, then broker 1 is elected again
                m.ctrlLeaderEpoch++;
                m.ctrlPartitionEpoch++;
                f.partition.makeFollower(registration(2, m.ctrlLeaderEpoch, m.ctrlPartitionEpoch, List.of(1, 2, 3), m.ctrlIsr));
                m.wake();
                m.ctrlLeaderEpoch++;
                m.ctrlPartitionEpoch++;
                f.partition.makeLeader(registration(1, m.ctrlLeaderEpoch, m.ctrlPartitionEpoch, List.of(1, 2, 3), m.ctrlIsr));
                m.wake();
        } else if (cmd instanceof Expire) {
            m.timer.expireAll();
        }
    }

    /** A model controller (ISR-6 subset) answers one unanswered proposal, possibly an old one (stale answers). */
    private static void answer(Model m, Answer ans) {
        List<HeldAlterPartitionSender.Submitted> all = m.f.sender.all();
        List<Integer> open = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (!m.answered.contains(i)) {
                open.add(i);
            }
        }
        if (open.isEmpty()) {
            return;
        }
        int index = open.get(ans.pick() % open.size());
        m.answered.add(index);
        HeldAlterPartitionSender.Submitted s = all.get(index);
        AlterPartitionRequest.Item item = s.item();
        AlterPartitionResponse.PartitionResult result = switch (ans.kind()) {
            case CONTROLLER -> {
                if (item.leaderEpoch() != m.ctrlLeaderEpoch) {
                    yield AlterPartitionResponse.PartitionResult.failed(Errors.FENCED_LEADER_EPOCH);
                }
                if (item.partitionEpoch() != m.ctrlPartitionEpoch) {
                    yield AlterPartitionResponse.PartitionResult.failed(Errors.INVALID_UPDATE_VERSION);
                }
                m.ctrlIsr = item.newIsrIds();
                m.ctrlPartitionEpoch++;
                yield new AlterPartitionResponse.PartitionResult(Errors.NONE, 1, m.ctrlLeaderEpoch, m.ctrlIsr,
                        m.ctrlPartitionEpoch);
            }
            case INELIGIBLE -> AlterPartitionResponse.PartitionResult.failed(Errors.INELIGIBLE_REPLICA);
            case NOT_CONTROLLER -> AlterPartitionResponse.PartitionResult.failed(Errors.NOT_CONTROLLER);
            case NOT_ATTEMPTED -> AlterPartitionResponse.PartitionResult.failed(Errors.OPERATION_NOT_ATTEMPTED);
        };
        s.future().complete(result);
        m.wake();
    }

    private static void check(Model m, Cmd cmd, IsrState before, long hwBefore) {
        Partition p = m.f.partition;
        long hw = p.highWatermark();
        long leo = p.logEndOffset();
        IsrState state = p.isrState();
        // HW-3: the leader's HW only moves up
        if (hw < hwBefore) {
            m.violations.add("HW-3: HW went down from " + hwBefore + " to " + hw);
        }
        if (hw > leo) {
            m.violations.add("HW above LEO: " + hw + " > " + leo);
        }
        // HW-6: the leader's knowledge of a follower's LEO never exceeds the truth
        for (int id : List.of(2, 3)) {
            long known = p.remoteReplicaState(id).orElseThrow().logEndOffset();
            if (known > m.trueLeo.get(id)) {
                m.violations.add("HW-6: leader thinks " + id + " has " + known + " but it has " + m.trueLeo.get(id));
            }
        }
        // HW-1 / ISR-4: every member of the leader's maximal ISR and of the controller's committed ISR truly holds
        // everything below the HW (an uncommitted shrink must not let the HW run ahead of a leaving replica)
        Set<Integer> mustHold = new HashSet<>(state.maximalIsr());
        mustHold.addAll(m.ctrlIsr);
        for (int id : mustHold) {
            if (id != 1 && m.trueLeo.get(id) < hw) {
                m.violations.add("HW-1/ISR-4: HW " + hw + " above ISR member " + id + "'s LEO " + m.trueLeo.get(id));
            }
        }
        // HW-2: under min ISR the HW does not move
        if (hw > hwBefore && p.isUnderMinIsr()) {
            m.violations.add("HW-2: HW moved from " + hwBefore + " to " + hw + " under min ISR " + state);
        }
        // HW-4: the HW is up to date after every step (nothing that could raise it was left unevaluated)
        if (!(cmd instanceof Advance) && p.maybeIncrementLeaderHW(m.f.time.milliseconds())) {
            long caughtUpCandidates = List.of(2, 3).stream().filter(id -> !state.maximalIsr().contains(id)).count();
            if (caughtUpCandidates == 0) {
                m.violations.add("HW-4: the HW could rise after " + cmd + " but was not re-evaluated");
            }
        }
        // ISR-4: one change in flight; a new proposal never replaces a pending one
        if (before.isInflight() && state.isInflight() && before != state) {
            m.violations.add("ISR-4: pending " + before + " replaced by " + state + " without resolution");
        }
        if (p.maybeIncrementLeaderHW(m.f.time.milliseconds())) {
            m.wake();
        }
        m.lastHw = p.highWatermark();
    }
}
