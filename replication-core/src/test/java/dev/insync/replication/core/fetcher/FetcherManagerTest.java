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

package dev.insync.replication.core.fetcher;

import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

class FetcherManagerTest extends FetcherTestSupport {

    /** A partition whose {@code 31 * topic.hashCode() + partition} is exactly Integer.MIN_VALUE. */
    static TopicPartition partitionHashingToMinValue() {
        for (int n = 0; n < 1000; n++) {
            String topic = "t" + n;
            int partition = Integer.MIN_VALUE - 31 * topic.hashCode(); // int arithmetic wraps
            if (partition >= 0) {
                return new TopicPartition(topic, partition);
            }
        }
        throw new AssertionError("no partition found");
    }

    @Test
    @DisplayName("FOL-1 fetcherId: abs of Integer.MIN_VALUE counts as 0")
    void fol1MinValue() {
        TopicPartition tp = partitionHashingToMinValue();
        assertThat(31 * tp.topic().hashCode() + tp.partition()).isEqualTo(Integer.MIN_VALUE);
        // Math.abs(MIN_VALUE) is negative; a naive formula would give a negative id for 3 fetchers.
        assertThat(Math.abs(Integer.MIN_VALUE) % 3).isNegative();
        assertThat(FetcherManager.fetcherId(tp, 3)).isZero();
        assertThat(FetcherManager.fetcherId(tp, 7)).isZero();
    }

    /** Topic names of 1 to 12 ASCII letters (a-z, A-Z). */
    private static Gen<String> alphaTopics() {
        Gen<Character> letter = integers().between(0, 51).map(i -> (char) (i < 26 ? 'a' + i : 'A' + i - 26));
        return lists().of(letter).ofSizeBetween(1, 12)
                .map(cs -> cs.stream().map(String::valueOf).collect(Collectors.joining()));
    }

    @Test
    @DisplayName("FOL-1 fetcherId = abs(31 * topic.hashCode() + partition) % num.replica.fetchers")
    void fol1Formula() {
        qt().withExamples(200).forAll(alphaTopics(), integers().between(0, 5000), integers().between(1, 16))
                .checkAssert((topic, partition, numFetchers) -> {
                    long v = (int) (31L * topic.hashCode() + partition); // Java int arithmetic wraps the same way
                    long expected = (v == Integer.MIN_VALUE ? 0 : Math.abs(v)) % numFetchers;
                    assertThat(FetcherManager.fetcherId(new TopicPartition(topic, partition), numFetchers))
                            .isEqualTo((int) expected)
                            .isBetween(0, numFetchers - 1);
                });
    }

    @Test
    @DisplayName("FOL-1 one fetcher per (leader, fetcherId), executor named ReplicaFetcherThread-<fetcherId>-<leaderId>")
    void fol1OneFetcherPerLeader() {
        FetcherManager m = manager(3, 1);
        FakeFollowerPartition a = new FakeFollowerPartition(DIV0).withBatches(batch(0, 4, 0)).withHighWatermark(5);
        FakeFollowerPartition b = new FakeFollowerPartition(DIV1).withBatches(batch(0, 1, 0)).withHighWatermark(2);
        FakeFollowerPartition c = new FakeFollowerPartition(new TopicPartition("other", 0));
        m.addFetcherForPartitions(Map.of(DIV0, follow(a, 1, 0), DIV1, follow(b, 1, 0)));
        m.addFetcherForPartitions(Map.of(c.topicPartition(), follow(c, 2, 0)));
        scheduler.runReady();

        assertThat(scheduler.executorNames()).containsExactly("ReplicaFetcherThread-0-1", "ReplicaFetcherThread-0-2");
        assertThat(m.fetchers()).extracting(ReplicaFetcher::name)
                .containsExactly("ReplicaFetcherThread-0-1", "ReplicaFetcherThread-0-2");
        // One request per leader, carrying all of that leader's partitions.
        assertThat(transport.sent).hasSize(2);
        assertThat(transport.sent.get(0).leaderId()).isEqualTo(1);
        assertThat(transport.sent.get(0).request().partitions().keySet()).containsExactlyInAnyOrder(DIV0, DIV1);
        assertThat(transport.sent.get(1).leaderId()).isEqualTo(2);
    }

    @Test
    @DisplayName("FOL-1 partitions spread over num.replica.fetchers fetchers by fetcherId")
    void fol1SpreadsByFetcherId() {
        FetcherManager m = manager(3, 4);
        for (int p = 0; p < 8; p++) {
            TopicPartition tp = new TopicPartition("spread", p);
            m.addFetcherForPartitions(Map.of(tp, follow(new FakeFollowerPartition(tp), 1, 0)));
        }
        for (int p = 0; p < 8; p++) {
            TopicPartition tp = new TopicPartition("spread", p);
            int id = FetcherManager.fetcherId(tp, 4);
            assertThat(m.fetcherFor(tp)).get().extracting(ReplicaFetcher::name)
                    .isEqualTo("ReplicaFetcherThread-" + id + "-1");
        }
        assertThat(m.fetchers()).hasSize(4);
    }

    @Test
    @DisplayName("FOL-1 a leader change moves the partition to the new leader's fetcher; idle fetchers stop")
    void fol1LeaderChangeMovesPartition() {
        FetcherManager m = manager(3, 1);
        FakeFollowerPartition a = new FakeFollowerPartition(DIV0).withBatches(batch(0, 4, 0)).withHighWatermark(5);
        m.addFetcherForPartitions(Map.of(DIV0, follow(a, 1, 0)));
        scheduler.runReady();
        m.addFetcherForPartitions(Map.of(DIV0, follow(a, 2, 1)));
        assertThat(m.fetchers()).hasSize(2);
        assertThat(m.fetchers().get(0).partitionCount()).isZero();
        m.shutdownIdleFetchers();
        assertThat(m.fetchers()).extracting(ReplicaFetcher::name).containsExactly("ReplicaFetcherThread-0-2");
        assertThat(m.fetchState(DIV0)).get().extracting(PartitionFetchState::currentLeaderEpoch).isEqualTo(1);

        m.removeFetcherForPartitions(Set.of(DIV0));
        assertThat(m.fetchState(DIV0)).isEmpty();
        m.shutdownIdleFetchers();
        assertThat(m.fetchers()).isEmpty();

        // Leadership comes back to broker 1: a new fetcher on the executor it had before (no new thread).
        m.addFetcherForPartitions(Map.of(DIV0, follow(a, 1, 2)));
        assertThat(m.fetchers()).extracting(ReplicaFetcher::name).containsExactly("ReplicaFetcherThread-0-1");
        assertThat(scheduler.executorNames()).containsExactly("ReplicaFetcherThread-0-1", "ReplicaFetcherThread-0-2");
    }

    @Test
    @DisplayName("FOL-7 no leader, no fetcher")
    void fol7NoLeaderNoFetcher() {
        FakeFollowerPartition a = new FakeFollowerPartition(DIV0);
        assertThatThrownBy(() -> new InitialFetchState(a, -1, 3, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("div-0");
    }

    @Test
    @DisplayName("FOL-7 a follower may start at offset 0 and follow broker 0; a negative initial offset is refused, naming the partition")
    void fol7InitialOffsetBounds() {
        FakeFollowerPartition a = new FakeFollowerPartition(DIV0);
        assertThat(new InitialFetchState(a, 1, 3, 0).initOffset()).isZero();
        assertThat(new InitialFetchState(a, 0, 3, 0).leaderId()).as("broker 0 can lead").isZero();
        assertThatThrownBy(() -> new InitialFetchState(a, 1, 3, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("div-0");
    }

    @Test
    @DisplayName("FOL-1 an idle fetcher that is let go is stopped, not left running: it takes no partition any more")
    void fol1IdleFetcherStopped() {
        FetcherManager m = manager(3, 1);
        FakeFollowerPartition a = new FakeFollowerPartition(DIV0).withBatches(batch(0, 4, 0)).withHighWatermark(5);
        m.addFetcherForPartitions(Map.of(DIV0, follow(a, 1, 0)));
        scheduler.runReady();
        ReplicaFetcher idle = m.fetcherFor(DIV0).orElseThrow();
        m.removeFetcherForPartitions(Set.of(DIV0));
        m.shutdownIdleFetchers();
        assertThat(m.fetchers()).isEmpty();
        assertThatThrownBy(() -> idle.addPartitions(Map.of(DIV0, follow(a, 1, 0))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("shut down");
    }

    @Test
    @DisplayName("FOL-7 initialFetchOffset is the LEO with epoch information, else the HW")
    void fol7InitialFetchOffset() {
        FakeFollowerPartition withEpochs = new FakeFollowerPartition(DIV0).withBatches(batch(0, 9, 0))
                .withHighWatermark(4);
        FakeFollowerPartition withoutEpochs = new FakeFollowerPartition(DIV1).withBatches(batch(0, 9, -1))
                .withHighWatermark(4);
        assertThat(FetcherManager.initialFetchOffset(withEpochs)).isEqualTo(10);
        assertThat(FetcherManager.initialFetchOffset(withoutEpochs)).isEqualTo(4);
    }

    @Test
    @DisplayName("FOL-1 shutdown stops every fetcher: no further requests")
    void fol1Shutdown() {
        FetcherManager m = manager(3, 1);
        FakeFollowerPartition a = new FakeFollowerPartition(DIV0).withBatches(batch(0, 4, 0)).withHighWatermark(5);
        m.addFetcherForPartitions(Map.of(DIV0, follow(a, 1, 0)));
        scheduler.runReady();
        assertThat(transport.sent).hasSize(1);
        m.shutdown();
        transport.last().future().complete(response(DIV0, data(5, 0, 5, FakeFollowerPartition.records())));
        scheduler.advance(10_000);
        assertThat(transport.sent).hasSize(1);
        assertThat(m.fetchers()).isEmpty();
    }
}
