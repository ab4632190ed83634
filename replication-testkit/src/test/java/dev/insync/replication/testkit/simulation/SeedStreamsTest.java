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

package dev.insync.replication.testkit.simulation;

import dev.insync.replication.testkit.history.HistoryEvent;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeds are independent: neighbouring seeds share no stream (the old derivation made seed s+1 replay
 * seed s one draw later), the components of one seed share none, and every per-seed setting shows
 * up across a range of seeds with its intended frequency.
 */
class SeedStreamsTest {

    private static final int SEEDS = 1000;
    private static final int DRAWS = 32;

    private static List<Long> draws(long seed, SeedStreams.Component c) {
        SplittableRandom r = SeedStreams.stream(seed, c);
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < DRAWS; i++) {
            out.add(r.nextLong());
        }
        return out;
    }

    @Test
    @DisplayName("INV-6 a neighbouring seed's stream is not the same stream shifted: no draw of seed s+1 is among seed s's first draws")
    void neighbouringSeedsDoNotShareStreams() {
        for (SeedStreams.Component c : SeedStreams.Component.values()) {
            for (long seed = 1; seed <= SEEDS; seed++) {
                Set<Long> mine = new HashSet<>(draws(seed, c));
                List<Long> next = draws(seed + 1, c);
                assertThat(next).as("%s of seed %d vs %d", c, seed + 1, seed).doesNotContainAnyElementsOf(mine);
            }
        }
    }

    @Test
    @DisplayName("INV-6 the components of one seed draw from unrelated streams")
    void componentsDoNotShareStreams() {
        for (long seed = -5; seed <= SEEDS; seed++) {
            Set<Long> seen = new HashSet<>();
            for (SeedStreams.Component c : SeedStreams.Component.values()) {
                List<Long> d = draws(seed, c);
                if (!seen.isEmpty()) {
                    assertThat(d).as("%s of seed %d", c, seed).doesNotContainAnyElementsOf(seen);
                }
                seen.addAll(d);
            }
        }
    }

    @Test
    @DisplayName("INV-6 a seed's stream is the same every time (determinism)")
    void streamsAreReproducible() {
        for (SeedStreams.Component c : SeedStreams.Component.values()) {
            assertThat(draws(42, c)).isEqualTo(draws(42, c));
        }
    }

    @Test
    @DisplayName("INV-6 neighbouring seeds agree on their first workload and fault draws no more often than chance")
    void firstDrawsOfNeighboursAreUncorrelated() {
        // The first tick length and whether the first tick attempts a fault: with the old derivation
        // seed s+1's first draw was seed s's second, so these agreed far more often than chance.
        int sameTick = 0;
        int sameBucket = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            SplittableRandom a = SeedStreams.stream(seed, SeedStreams.Component.WORKLOAD);
            SplittableRandom b = SeedStreams.stream(seed + 1, SeedStreams.Component.WORKLOAD);
            if (a.nextLong(50, 251) == b.nextLong(50, 251)) {
                sameTick++;
            }
            SplittableRandom fa = SeedStreams.stream(seed, SeedStreams.Component.FAULTS);
            SplittableRandom fb = SeedStreams.stream(seed + 1, SeedStreams.Component.FAULTS);
            if ((int) (fa.nextDouble() * 10) == (int) (fb.nextDouble() * 10)) {
                sameBucket++;
            }
        }
        // Chance: 1/201 and 1/10; allow five standard deviations.
        assertThat(sameTick).isLessThanOrEqualTo(bound(SEEDS, 1.0 / 201));
        assertThat(sameBucket).isLessThanOrEqualTo(bound(SEEDS, 0.1));
    }

    @Test
    @DisplayName("INV-6 neighbouring seeds run different fault schedules")
    void neighbouringSeedsInjectDifferentFaults() {
        SimulationSettings settings = SimulationSettings.DEFAULT.withDurationMs(8_000);
        List<List<String>> schedules = new ArrayList<>();
        for (long seed = 1; seed <= 8; seed++) {
            List<HistoryEvent> events = Simulation.run(seed, settings).history().events();
            long healAt = events.stream().filter(HistoryEvent.Quiesce.class::isInstance).findFirst().orElseThrow().t();
            List<String> faults = new ArrayList<>();
            for (HistoryEvent e : events) {
                // The heal phase undoes whatever is left, at the same moment in every seed: not the schedule.
                if (e instanceof HistoryEvent.Fault f && f.t() < healAt) {
                    faults.add(f.t() + " " + f.kind() + " " + f.brokers());
                }
            }
            schedules.add(faults);
        }
        for (int i = 1; i < schedules.size(); i++) {
            List<String> shared = new ArrayList<>(schedules.get(i));
            shared.retainAll(schedules.get(i - 1));
            assertThat(shared).as("faults seed %d shares with seed %d", i + 1, i).isEmpty();
            assertThat(schedules.get(i)).isNotEqualTo(schedules.get(i - 1));
        }
    }

    @Test
    @DisplayName("INV-6 over seeds 1..1000 every setting value appears with about its intended frequency")
    void settingsAreSpreadAcrossSeeds() {
        SimulationSettings settings = SimulationSettings.DEFAULT.withUncleanShare(0.2);
        List<SeedProfile> profiles = new ArrayList<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            profiles.add(SeedProfile.draw(seed, settings));
        }
        double small = SeedProfile.SMALL_SEGMENT_PROBABILITY;
        expect(profiles, p -> p.partitions(), Map.of(1, SeedProfile.PARTITIONS_WEIGHTS[0],
                2, SeedProfile.PARTITIONS_WEIGHTS[1], 3, SeedProfile.PARTITIONS_WEIGHTS[2]));
        double two = SeedProfile.MIN_ISR_TWO_PROBABILITY;
        expect(profiles, p -> p.initialMinIsr(), Map.of(2, two, 3, (1 - two) / 2, 1, (1 - two) / 2));
        Map<Object, Double> segments = new HashMap<>();
        for (int bytes : SeedProfile.SMALL_SEGMENT_BYTES) {
            segments.put(bytes, small / SeedProfile.SMALL_SEGMENT_BYTES.length);
        }
        segments.put(SeedProfile.LARGE_SEGMENT_BYTES, 1 - small);
        expect(profiles, p -> p.segmentBytes(), segments);
        expect(profiles, p -> p.maxValueBytes() > 0, Map.of(true, SeedProfile.LARGE_VALUES_PROBABILITY,
                false, 1 - SeedProfile.LARGE_VALUES_PROBABILITY));
        expect(profiles, p -> p.fetchMaxBytes(), Map.of(SeedProfile.SMALL_FETCH_BYTES, SeedProfile.SMALL_FETCH_PROBABILITY,
                SeedProfile.DEFAULT_FETCH_BYTES, 1 - SeedProfile.SMALL_FETCH_PROBABILITY));
        double bytes = small * SeedProfile.RETENTION_BYTES_PROBABILITY;
        double time = small * SeedProfile.RETENTION_MS_PROBABILITY;
        expect(profiles, p -> p.retentionBytes() > 0 ? "bytes" : p.retentionMs() > 0 ? "time" : "none",
                Map.of("bytes", bytes, "time", time, "none", 1 - bytes - time));
        expect(profiles, p -> p.unclean(), Map.of(true, 0.2, false, 0.8));
        expect(profiles, p -> p.pollTimeoutMs(), Map.of(SeedProfile.LONG_POLL_TIMEOUT_MS, SeedProfile.LONG_POLL_PROBABILITY,
                SeedProfile.SHORT_POLL_TIMEOUT_MS, 1 - SeedProfile.LONG_POLL_PROBABILITY));
        expect(profiles, p -> p.logDirs(), Map.of(2, SeedProfile.TWO_LOG_DIRS_PROBABILITY,
                1, 1 - SeedProfile.TWO_LOG_DIRS_PROBABILITY));
        // And no quarter of the range misses a setting value another quarter has.
        for (int q = 0; q < 4; q++) {
            List<SeedProfile> quarter = profiles.subList(q * SEEDS / 4, (q + 1) * SEEDS / 4);
            assertThat(quarter.stream().map(SeedProfile::partitions).distinct().count()).isEqualTo(3);
            assertThat(quarter.stream().map(SeedProfile::segmentBytes).distinct().count()).isEqualTo(4);
            assertThat(quarter.stream().map(SeedProfile::initialMinIsr).distinct().count()).isEqualTo(3);
            assertThat(quarter).anyMatch(SeedProfile::unclean).anyMatch(p -> p.retentionMs() > 0)
                    .anyMatch(p -> p.logDirs() == 2);
        }
    }

    @Test
    @DisplayName("raising the unclean share only adds unclean seeds; the other settings of a seed stay")
    void uncleanShareOnlyAddsSeeds() {
        for (long seed = 1; seed <= 200; seed++) {
            SeedProfile low = SeedProfile.draw(seed, SimulationSettings.DEFAULT.withUncleanShare(0.1));
            SeedProfile high = SeedProfile.draw(seed, SimulationSettings.DEFAULT.withUncleanShare(0.5));
            if (low.unclean()) {
                assertThat(high.unclean()).isTrue();
            }
            assertThat(high.partitions()).isEqualTo(low.partitions());
            assertThat(high.segmentBytes()).isEqualTo(low.segmentBytes());
        }
    }

    /** Each value's count within five standard deviations of n·p, and no other value. */
    private static <T> void expect(List<SeedProfile> profiles, Function<SeedProfile, T> setting, Map<?, Double> frequencies) {
        Map<Object, Integer> counts = new HashMap<>();
        for (SeedProfile p : profiles) {
            counts.merge(setting.apply(p), 1, Integer::sum);
        }
        assertThat(counts.keySet()).as("values seen").isSubsetOf(frequencies.keySet());
        int n = profiles.size();
        frequencies.forEach((value, p) -> {
            int count = counts.getOrDefault(value, 0);
            double sigma = Math.sqrt(n * p * (1 - p));
            assertThat((double) count).as("seeds with %s (expected %.0f)", value, n * p)
                    .isBetween(n * p - 5 * sigma, n * p + 5 * sigma);
        });
    }

    private static int bound(int n, double p) {
        return (int) Math.ceil(n * p + 5 * Math.sqrt(n * p * (1 - p)));
    }
}
