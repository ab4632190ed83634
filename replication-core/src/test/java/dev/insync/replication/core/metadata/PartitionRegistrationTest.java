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

package dev.insync.replication.core.metadata;

import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PartitionRegistrationTest {

    private static final TopicPartition TP = new TopicPartition("rep", 0);

    @Test
    @DisplayName("LDR-3 the builder fills every field, with defaults for those not given")
    void builder() {
        assertThat(PartitionRegistration.builder(TP).build()).isEqualTo(new PartitionRegistration(TP, List.of(),
                List.of(), List.of(), List.of(), PartitionRegistration.NO_LEADER, 0, 0, false));
        PartitionRegistration full = PartitionRegistration.builder(TP).replicas(1, 2, 3).isr(1, 2).elr(List.of(3))
                .lastKnownElr(List.of(4)).leader(1).leaderEpoch(5).partitionEpoch(9).recovering(true).build();
        assertThat(full).isEqualTo(new PartitionRegistration(TP, List.of(1, 2, 3), List.of(1, 2), List.of(3),
                List.of(4), 1, 5, 9, true));
    }

    @Test
    @DisplayName("LDR-3 toBuilder copies every field, so a change touches only what it sets")
    void toBuilderChangesOnlyWhatItSets() {
        PartitionRegistration p = new PartitionRegistration(TP, List.of(1, 2, 3), List.of(1, 2, 3), List.of(),
                List.of(7), 2, 4, 6, false);
        assertThat(p.toBuilder().build()).isEqualTo(p);
        PartitionRegistration shrunk = p.toBuilder().isr(1, 2).partitionEpoch(7).build();
        assertThat(shrunk).isEqualTo(new PartitionRegistration(TP, List.of(1, 2, 3), List.of(1, 2), List.of(),
                List.of(7), 2, 4, 7, false));
    }

    @Test
    @DisplayName("LDR-2 a metadata delta built piece by piece equals the one built from its lists")
    void metadataDeltaBuilder() {
        PartitionRegistration p = PartitionRegistration.builder(TP).replicas(1, 2).isr(1, 2).leader(1).build();
        BrokerRegistration b = new BrokerRegistration(2, 5L, false, false);
        TopicPartition gone = new TopicPartition("old", 0);
        assertThat(MetadataDelta.builder(7).broker(b).partition(p).deletedPartition(gone).minInsyncReplicas("rep", 2)
                .build()).isEqualTo(new MetadataDelta(7, List.of(b), List.of(p), List.of(gone), java.util.Map.of("rep", 2)));
        assertThat(MetadataDelta.builder(8).build()).isEqualTo(new MetadataDelta(8, List.of(), List.of(), List.of(),
                java.util.Map.of()));
    }
}
