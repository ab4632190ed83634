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
