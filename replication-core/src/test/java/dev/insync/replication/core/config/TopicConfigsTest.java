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

package dev.insync.replication.core.config;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopicConfigsTest {

    @Test
    @DisplayName("Per-topic min.insync.replicas changes at run time without a restart")
    void minIsrChangesAtRunTime() {
        TopicConfigs topics = new TopicConfigs(ReplicationConfig.builder().minInsyncReplicas(2).build());
        assertThat(topics.minInsyncReplicas("rep")).isEqualTo(2);
        topics.applyTopicProperties("rep", Map.of("min.insync.replicas", "3"));
        assertThat(topics.minInsyncReplicas("rep")).isEqualTo(3);
        assertThat(topics.minInsyncReplicas("other")).isEqualTo(2);
        topics.setMinInsyncReplicas("rep", 1);
        assertThat(topics.minInsyncReplicas("rep")).isEqualTo(1);
        topics.removeOverride("rep");
        assertThat(topics.minInsyncReplicas("rep")).isEqualTo(2);
    }

    @Test
    @DisplayName("HW-2 effective min ISR is min(min.insync.replicas, replicas); bad inputs are refused")
    void effectiveMinIsr() {
        assertThat(TopicConfigs.effectiveMinIsr(3, 2)).isEqualTo(2);
        assertThat(TopicConfigs.effectiveMinIsr(3, 5)).isEqualTo(3);
        assertThat(TopicConfigs.effectiveMinIsr(2, 0)).isZero();
        assertThatThrownBy(() -> TopicConfigs.effectiveMinIsr(0, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("min.insync.replicas");
        assertThatThrownBy(() -> TopicConfigs.effectiveMinIsr(2, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }

    @Test
    void badOverrideChangesNothing() {
        TopicConfigs topics = new TopicConfigs(2);
        topics.setMinInsyncReplicas("t", 3);
        assertThatThrownBy(() -> topics.setMinInsyncReplicas("t", 0)).hasMessageContaining("t")
                .hasMessageContaining("min.insync.replicas");
        assertThatThrownBy(() -> topics.applyTopicProperties("t", Map.of("min.insync.replicas", "many")))
                .hasMessageContaining("Topic t");
        assertThat(topics.minInsyncReplicas("t")).isEqualTo(3);
    }
}
