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

package dev.insync.replication.controller.control;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReplicaPlacerTest {

    @Test
    @DisplayName("every partition gets distinct replicas; leaders and replicas spread evenly")
    void spread() {
        for (int n = 1; n <= 6; n++) {
            for (int rf = 1; rf <= n; rf++) {
                List<List<Integer>> assignment = ReplicaPlacer.place(n * 4, rf, List.of(16, 4, 8, 12, 20, 24).subList(0, n));
                Map<Integer, Integer> leaders = new HashMap<>();
                Map<Integer, Integer> replicas = new HashMap<>();
                for (List<Integer> r : assignment) {
                    assertThat(new HashSet<>(r)).hasSize(rf);
                    leaders.merge(r.get(0), 1, Integer::sum);
                    r.forEach(id -> replicas.merge(id, 1, Integer::sum));
                }
                assertThat(leaders.values()).containsOnly(4);
                assertThat(replicas.values()).containsOnly(4 * rf);
            }
        }
    }

    @Test
    @DisplayName("too few brokers or no partitions are refused")
    void refused() {
        assertThatThrownBy(() -> ReplicaPlacer.place(1, 2, List.of(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReplicaPlacer.place(0, 1, List.of(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReplicaPlacer.place(1, 1, List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
