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

import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FetchRequestBuilderTest {

    private static final TopicPartition A = new TopicPartition("a", 0);
    private static final TopicPartition B = new TopicPartition("b", 3);

    @Test
    @DisplayName("FET-1 a consumer fetch has replica id -1 and broker epoch -1; defaults answer at once")
    void consumerFetch() {
        FetchRequest r = FetchRequest.consumer().partition(A, FetchRequest.PartitionData.at(7, 1024)).build();
        assertThat(r).isEqualTo(new FetchRequest(FetchRequest.CONSUMER_REPLICA_ID, -1L, 0, 1,
                FetchRequest.Builder.DEFAULT_MAX_BYTES, java.util.Map.of(A, new FetchRequest.PartitionData(7, -1, 1024,
                        OptionalInt.empty(), OptionalInt.empty()))));
        assertThat(r.isFromFollower()).isFalse();
    }

    @Test
    @DisplayName("FOL-3 FET-2 FET-3 a follower fetch keeps its partitions in the order added, with their epochs")
    void followerFetch() {
        FetchRequest.PartitionData a = FetchRequest.PartitionData.at(10, 512).withLogStartOffset(2)
                .withCurrentLeaderEpoch(4).withLastFetchedEpoch(OptionalInt.of(3));
        FetchRequest.PartitionData b = FetchRequest.PartitionData.at(0, 512).withCurrentLeaderEpoch(4);
        FetchRequest r = FetchRequest.follower(2, 17L).maxWaitMs(500).minBytes(8).maxBytes(4096)
                .partition(B, b).partition(A, a).build();
        assertThat(r).isEqualTo(new FetchRequest(2, 17L, 500, 8, 4096, new java.util.LinkedHashMap<>(
                java.util.Map.of(B, b, A, a))));
        assertThat(List.copyOf(r.partitions().keySet())).containsExactly(B, A);
        assertThat(a).isEqualTo(new FetchRequest.PartitionData(10, 2, 512, OptionalInt.of(4), OptionalInt.of(3)));
        assertThat(r.isFromFollower()).isTrue();
    }

    @Test
    @DisplayName("A partition listed twice, a negative bound or a negative follower id is refused, naming the value")
    void badInputIsRefused() {
        FetchRequest.Builder twice = FetchRequest.consumer().partition(A, FetchRequest.PartitionData.at(0, 1))
                .partition(A, FetchRequest.PartitionData.at(5, 1));
        assertThatThrownBy(twice::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a-0");
        assertThatThrownBy(() -> FetchRequest.consumer().maxWaitMs(-1)).hasMessageContaining("-1");
        assertThatThrownBy(() -> FetchRequest.consumer().maxBytes(0)).hasMessageContaining("0");
        assertThatThrownBy(() -> FetchRequest.follower(-1, 0)).hasMessageContaining("-1");
    }
}
