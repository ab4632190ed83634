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

package dev.insync.replication.testkit.cluster;

import dev.insync.replication.log.Errors;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.history.InvariantChecker;
import dev.insync.replication.testkit.history.Violation;
import dev.insync.replication.testkit.simulation.Recorder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The consumer's part of a self-contained history: every record it was given is recorded. */
class TestConsumerTest {

    private static final long POLL_TIMEOUT_MS = 2_000;

    /** What a consumer did when its poll of a paused leader timed out and the answer came later. */
    private record LateAnswer(PollOutcome timedOut, long positionAfterLateAnswer, PollOutcome next,
                              List<HistoryEvent> history, List<Violation> violations) {
    }

    private static LateAnswer pollPausedLeader(Optional<Mutation> mutation) {
        InMemoryCluster.Builder b = InMemoryCluster.builder().brokers(3).seed(5)
                .config("min.insync.replicas", 2).config("broker.session.timeout.ms", 30_000);
        mutation.ifPresent(b::mutation);
        try (InMemoryCluster cluster = b.build()) {
            cluster.createTopic("t", 1, 2, 3);
            Recorder rec = new Recorder(cluster, "t", 0);
            rec.config(2, List.of(1, 2, 3), false);
            TestProducer p = cluster.producer("p");
            for (int i = 0; i < 3; i++) {
                assertThat(cluster.await(rec.produce(p, -1, "v" + i, 5_000)).isSuccess()).isTrue();
            }
            TestConsumer c = cluster.consumer("c").maxBytes(1);
            cluster.pause(1);
            rec.fault("pause", List.of(1));
            PollOutcome timedOut = cluster.await(rec.poll(c, 0, POLL_TIMEOUT_MS));
            cluster.resume(1);
            rec.fault("resume", List.of(1));
            cluster.runFor(100); // the paused leader answers now, late
            long after = c.position("t", 0);
            PollOutcome next = cluster.await(rec.poll(c, 0, POLL_TIMEOUT_MS));
            return new LateAnswer(timedOut, after, next, rec.history().events(),
                    new InvariantChecker().violations(rec.history()));
        }
    }

    @Test
    @DisplayName("INV-2 a poll that timed out discards the late answer: the position stays, the next poll gets those records and the history has them all")
    void lateAnswerIsDiscarded() {
        LateAnswer run = pollPausedLeader(Optional.empty());

        assertThat(run.timedOut().timedOut()).isTrue();
        assertThat(run.timedOut().records()).isEmpty();
        assertThat(run.positionAfterLateAnswer()).as("position after the late answer arrived").isZero();
        assertThat(run.next().error()).isEqualTo(Errors.NONE);
        assertThat(run.next().textRecords()).extracting(ConsumedRecord::value).containsExactly("v0");
        assertThat(run.history()).filteredOn(HistoryEvent.Consume.class::isInstance).hasSize(1);
        assertThat(run.history()).filteredOn(HistoryEvent.PollDone.class::isInstance)
                .extracting(e -> ((HistoryEvent.PollDone) e).outcome()).containsExactly("TIMEOUT", "NONE");
        assertThat(run.violations()).isEmpty();
    }

    @Test
    @DisplayName("INV-2 a consumer that moves on a late answer skips records the history never saw, and the checker says so")
    void movingOnALateAnswerIsCaught() {
        LateAnswer run = pollPausedLeader(Optional.of(Mutation.CONSUMER_MOVES_ON_LATE_ANSWER));

        assertThat(run.positionAfterLateAnswer()).isEqualTo(1);
        assertThat(run.next().textRecords()).extracting(ConsumedRecord::value).containsExactly("v1");
        assertThat(run.violations()).extracting(Violation::invariant).containsExactly("INV-2");
        assertThat(run.violations().get(0).detail()).contains("starts at offset 1").contains("left it at 0");
    }
}
