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

package dev.insync.replication.bench.harness;

/**
 * The size retention the throughput measurements run their brokers with, so that the disk a run
 * needs is bounded by its topics, not by its length. Without it, a long window ({@code --seconds 40})
 * wrote 62 GB in one in-JVM scenario, and in the process bench, whose scenarios' topics stay until
 * the cluster stops, filled an 80 GB disk: the brokers' log directories failed, as designed, and the
 * later scenarios measured failures. Every replica keeps at most about
 * {@code retentionBytes + segmentBytes} plus what arrives within one {@code checkIntervalMs}. Each
 * target gets the same values under its own names, and the report says them; they are not Kafka's
 * defaults (1 GiB segments, no size bound, a check every 5 minutes, deleted files kept a minute). The
 * scale measurements run without it: a check every few seconds over tens of thousands of logs is
 * CPU the idle reading would count.
 *
 * @param segmentBytes    {@code segment.bytes}: small enough that retention can delete whole segments often
 * @param retentionBytes  {@code retention.bytes} of every partition
 * @param checkIntervalMs {@code log.retention.check.interval.ms}
 */
public record LogRetentionBound(int segmentBytes, long retentionBytes, long checkIntervalMs) {

    /** The bench's bound: 64 MiB segments, 128 MiB per partition, checked every 2 s. */
    public static final LogRetentionBound BENCH = new LogRetentionBound(64 << 20, 128L << 20, 2_000);

    public LogRetentionBound {
        if (segmentBytes <= 0 || retentionBytes < segmentBytes || checkIntervalMs <= 0) {
            throw new IllegalArgumentException("segment.bytes " + segmentBytes + ", retention.bytes " + retentionBytes
                    + ", check interval " + checkIntervalMs + " ms: each must be positive, retention at least a segment");
        }
    }
}
