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

package dev.insync.replication.core.rpc;

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FetchPartitionMapTest {

    private static FetchRequest.PartitionData at(long offset) {
        return new FetchRequest.PartitionData(offset, 0, 1 << 20, OptionalInt.of(1), OptionalInt.empty());
    }

    @Test
    @DisplayName("FOL-3 FET-6 a fetch keeps its partitions in request order, by position and by name, read-only")
    void orderLookupAndImmutability() {
        int n = 1_000;
        TopicPartition[] tps = new TopicPartition[n + 1];
        FetchRequest.PartitionData[] data = new FetchRequest.PartitionData[n + 1];
        Map<TopicPartition, FetchRequest.PartitionData> expected = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            // Descending partition numbers over two topics: the order is the arrays', not a sort.
            tps[i] = new TopicPartition(i % 2 == 0 ? "a" : "b", n - i);
            data[i] = at(i);
            expected.put(tps[i], data[i]);
        }
        tps[n] = new TopicPartition("not-sent", 0);
        data[n] = at(0);
        FetchRequest request = FetchRequest.follower(1, 2L).maxWaitMs(500).maxBytes(1 << 20).partitions(tps, data, n)
                .build();
        tps[0] = new TopicPartition("changed-after", 0);

        assertThat(request.partitions()).isEqualTo(expected);
        assertThat(List.copyOf(request.partitions().keySet())).containsExactlyElementsOf(expected.keySet());
        assertThat(request.partitionCount()).isEqualTo(n);
        for (int i = 0; i < n; i++) {
            TopicPartition tp = new TopicPartition(i % 2 == 0 ? "a" : "b", n - i);
            assertThat(request.topicPartition(i)).isEqualTo(tp);
            assertThat(request.partitionData(i)).isSameAs(data[i]);
            assertThat(request.partitions().get(tp)).isSameAs(data[i]);
        }
        assertThat(request.partitions().containsKey(new TopicPartition("not-sent", 0))).isFalse();
        assertThat(request.partitions().get("not a partition")).isNull();
        assertThatThrownBy(() -> request.partitions().put(tps[n], data[n]))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> request.partitions().entrySet().iterator().next().setValue(at(5)))
                .isInstanceOf(UnsupportedOperationException.class);
        // A request's map is taken as it is by another record; any other map is copied.
        assertThat(new FetchRequest(1, 2L, 500, 1, 1, request.partitions()).partitions())
                .isSameAs(request.partitions());
        Map<TopicPartition, FetchRequest.PartitionData> mutable = new LinkedHashMap<>(expected);
        FetchRequest copied = new FetchRequest(1, 2L, 500, 1, 1, mutable);
        mutable.clear();
        assertThat(copied.partitions()).isEqualTo(expected);
    }

    @Test
    @DisplayName("FET-6 a partition listed twice in a fetch is rejected")
    void duplicatesRejected() {
        TopicPartition tp = new TopicPartition("a", 0);
        assertThatThrownBy(() -> FetchResponse.of(Errors.NONE, new TopicPartition[] {tp, tp},
                new FetchResponse.PartitionData[] {FetchResponse.PartitionData.error(Errors.NONE),
                        FetchResponse.PartitionData.error(Errors.NONE)}, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a-0");
        FetchResponse empty = FetchResponse.of(Errors.NONE, new TopicPartition[0], new FetchResponse.PartitionData[0], 0);
        assertThat(empty.partitions()).isEmpty();
        assertThat(empty.partitionCount()).isZero();
    }
}
