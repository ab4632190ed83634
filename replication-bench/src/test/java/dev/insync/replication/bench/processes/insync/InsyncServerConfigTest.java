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

package dev.insync.replication.bench.processes.insync;

import dev.insync.replication.bench.harness.LogRetentionBound;
import dev.insync.replication.broker.BrokerConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bench's brokers parse their properties as {@code insync broker} does: a misspelt name would
 * only be logged as ignored, and the bound on the disk a run fills would silently be gone; without
 * a bound (the scale measurements) nothing of Insync's retention defaults changes.
 */
class InsyncServerConfigTest {

    private static final InsyncServerConfig.Layout LAYOUT =
            new InsyncServerConfig.Layout(0, 9000, 9001, Map.of(1, 9101, 2, 9102, 3, 9103));

    @Test
    void aBenchBrokerRunsRetentionWithinTheBenchBound() {
        LogRetentionBound bound = LogRetentionBound.BENCH;
        BrokerConfig config = BrokerConfig.fromProperties(InsyncServerConfig.broker(LAYOUT, 2,
                Path.of("/tmp/insync-bench-broker-2"), Optional.of(bound), Map.of()));

        assertThat(config.ignoredProperties()).doesNotContainAnyElementsOf(InsyncServerConfig.retention(bound).keySet());
        assertThat(config.logRetentionCheckIntervalMs()).isEqualTo(bound.checkIntervalMs());
        assertThat(config.replication().logConfig().segmentBytes()).isEqualTo(bound.segmentBytes());
        assertThat(config.replication().logConfig().retentionBytes()).isEqualTo(bound.retentionBytes());
    }

    @Test
    void withoutABoundABrokerKeepsInsyncsRetentionDefaults() {
        BrokerConfig config = BrokerConfig.fromProperties(InsyncServerConfig.broker(LAYOUT, 3,
                Path.of("/tmp/insync-bench-broker-3"), Optional.empty(), Map.of()));
        BrokerConfig defaults = BrokerConfig.fromProperties(Map.of("node.id", "3", "log.dirs", "/tmp/insync-bench-broker-3"));

        assertThat(config.logRetentionCheckIntervalMs()).isEqualTo(defaults.logRetentionCheckIntervalMs());
        assertThat(config.replication().logConfig()).isEqualTo(defaults.replication().logConfig());
    }

    @Test
    void aCallersOverridesComeLast() {
        BrokerConfig config = BrokerConfig.fromProperties(InsyncServerConfig.broker(LAYOUT, 1,
                Path.of("/tmp/insync-bench-broker-1"), Optional.of(LogRetentionBound.BENCH), Map.of("retention.bytes", "-1")));

        assertThat(config.replication().logConfig().retentionBytes()).isEqualTo(-1);
    }

    @Test
    void aBoundThatCannotDeleteWholeSegmentsIsRefused() {
        assertThatThrownBy(() -> new LogRetentionBound(64 << 20, 1 << 20, 2_000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retention at least a segment");
    }
}
