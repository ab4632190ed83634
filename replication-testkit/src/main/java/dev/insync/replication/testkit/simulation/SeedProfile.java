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

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The settings one seed runs with, drawn from the seed's own {@link SeedStreams.Component#SETTINGS}
 * stream, so that every range of seeds exercises every setting with its intended frequency (the
 * frequencies are the constants below; a test checks them over seeds 1..1000). Recorded as the
 * history's {@code settings} line.
 *
 * @param partitions       partitions of the one topic, each replicated on every broker
 * @param initialMinIsr    min.insync.replicas at the start (2 most of the time)
 * @param segmentBytes     segment.bytes: small so that catch-up crosses many segments, or Kafka-sized
 * @param maxValueBytes    upper bound of a produced value's size (below segment.bytes: Kafka refuses a
 *                         batch larger than a segment); 0 for short values ({@code p1-17})
 * @param fetchMaxBytes    replica.fetch.max.bytes: small in some seeds, so that catch-up takes many fetches
 * @param retentionBytes   retention.bytes, -1 for none
 * @param retentionMs      retention.ms, -1 for none
 * @param unclean          unclean.leader.election.enable for the topic
 * @param pollTimeoutMs    how long a consumer waits for a fetch answer before giving up on it
 * @param logDirs          log directories per broker (Kafka's {@code log.dirs}): 1, or 2 so that a failed
 *                         disk ({@link FaultKind#DISK}) takes only one of them offline
 */
public record SeedProfile(int partitions, int initialMinIsr, int segmentBytes, int maxValueBytes, int fetchMaxBytes,
                          long retentionBytes, long retentionMs, boolean unclean, long pollTimeoutMs, int logDirs) {

    /** Probabilities of 1, 2 and 3 partitions. */
    static final double[] PARTITIONS_WEIGHTS = {0.5, 0.3, 0.2};
    /** Probability that min ISR starts at 2 (else N or 1, half each). */
    static final double MIN_ISR_TWO_PROBABILITY = 0.8;
    /** Small segment sizes, equally likely, together {@link #SMALL_SEGMENT_PROBABILITY}. */
    static final int[] SMALL_SEGMENT_BYTES = {1024, 2048, 4096};
    static final double SMALL_SEGMENT_PROBABILITY = 0.6;
    /** Kafka's default segment size, for the other seeds. */
    static final int LARGE_SEGMENT_BYTES = 1024 * 1024;
    /** Probability of values up to {@link #LARGE_VALUE_BYTES} bytes instead of short ones. */
    static final double LARGE_VALUES_PROBABILITY = 0.4;
    static final int LARGE_VALUE_BYTES = 3000;
    /** Room a one-record batch needs besides its value (batch header 61 bytes, record header, key). */
    static final int BATCH_OVERHEAD_BYTES = 200;
    /** Probability of a small replica.fetch.max.bytes. */
    static final double SMALL_FETCH_PROBABILITY = 0.5;
    static final int SMALL_FETCH_BYTES = 4096;
    static final int DEFAULT_FETCH_BYTES = 1024 * 1024;
    /** With small segments: probability of retention by size, and by time. */
    static final double RETENTION_BYTES_PROBABILITY = 0.25;
    static final double RETENTION_MS_PROBABILITY = 0.15;
    /** Retention by size keeps this many segments' worth. */
    static final int RETAINED_SEGMENTS = 6;
    /** Retention by time keeps records younger than this (virtual ms on the broker's wall clock). */
    static final long RETENTION_MS = 8_000;
    /** Poll timeouts: a short one, and a long one under which a paused leader's late answer still counts. */
    static final long SHORT_POLL_TIMEOUT_MS = 2_000;
    static final long LONG_POLL_TIMEOUT_MS = 8_000;
    static final double LONG_POLL_PROBABILITY = 0.4;
    /** Probability of two log directories per broker (else one): the seeds where disks fail. */
    static final double TWO_LOG_DIRS_PROBABILITY = 0.4;

    /**
     * Draws the profile of {@code seed}. Every draw is made whatever its outcome is used for, so one
     * setting's value never shifts another's (raising {@code uncleanShare} only adds unclean seeds).
     *
     * @param settings the run's settings: a positive {@code initialMinIsr} pins min ISR, and
     *                 {@code uncleanShare} is the probability of unclean leader election
     */
    public static SeedProfile draw(long seed, SimulationSettings settings) {
        SplittableRandom r = SeedStreams.stream(seed, SeedStreams.Component.SETTINGS);
        int partitions = pick(r.nextDouble(), PARTITIONS_WEIGHTS) + 1;
        double minIsrDraw = r.nextDouble();
        int minIsr = minIsrDraw < MIN_ISR_TWO_PROBABILITY ? 2
                : minIsrDraw < (1 + MIN_ISR_TWO_PROBABILITY) / 2 ? settings.brokers() : 1;
        if (settings.initialMinIsr() > 0) {
            minIsr = settings.initialMinIsr();
        }
        double segmentDraw = r.nextDouble();
        int smallSegment = SMALL_SEGMENT_BYTES[r.nextInt(SMALL_SEGMENT_BYTES.length)];
        boolean smallSegments = segmentDraw < SMALL_SEGMENT_PROBABILITY;
        int segmentBytes = smallSegments ? smallSegment : LARGE_SEGMENT_BYTES;
        int maxValueBytes = r.nextDouble() < LARGE_VALUES_PROBABILITY
                ? Math.min(LARGE_VALUE_BYTES, segmentBytes - BATCH_OVERHEAD_BYTES) : 0;
        int fetchMaxBytes = r.nextDouble() < SMALL_FETCH_PROBABILITY ? SMALL_FETCH_BYTES : DEFAULT_FETCH_BYTES;
        double retentionDraw = r.nextDouble();
        long retentionBytes = smallSegments && retentionDraw < RETENTION_BYTES_PROBABILITY
                ? (long) RETAINED_SEGMENTS * segmentBytes : -1;
        long retentionMs = smallSegments && retentionDraw >= RETENTION_BYTES_PROBABILITY
                && retentionDraw < RETENTION_BYTES_PROBABILITY + RETENTION_MS_PROBABILITY ? RETENTION_MS : -1;
        boolean unclean = r.nextDouble() < settings.uncleanShare();
        long pollTimeoutMs = r.nextDouble() < LONG_POLL_PROBABILITY ? LONG_POLL_TIMEOUT_MS : SHORT_POLL_TIMEOUT_MS;
        // Drawn last, so the settings drawn before it stay what they were for every seed.
        int logDirs = r.nextDouble() < TWO_LOG_DIRS_PROBABILITY ? 2 : 1;
        return new SeedProfile(partitions, minIsr, segmentBytes, maxValueBytes, fetchMaxBytes, retentionBytes,
                retentionMs, unclean, pollTimeoutMs, logDirs);
    }

    private static int pick(double u, double[] weights) {
        double sum = 0;
        for (int i = 0; i < weights.length; i++) {
            sum += weights[i];
            if (u < sum) {
                return i;
            }
        }
        return weights.length - 1;
    }

    /** The profile as the fields of the history's {@code settings} line. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("partitions", partitions);
        m.put("initialMinIsr", initialMinIsr);
        m.put("segmentBytes", segmentBytes);
        m.put("maxValueBytes", maxValueBytes);
        m.put("fetchMaxBytes", fetchMaxBytes);
        m.put("retentionBytes", retentionBytes);
        m.put("retentionMs", retentionMs);
        m.put("unclean", unclean);
        m.put("pollTimeoutMs", pollTimeoutMs);
        m.put("logDirs", logDirs);
        return m;
    }
}
