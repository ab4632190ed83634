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

package dev.insync.replication.log;

/**
 * Per-log settings, with Kafka's property names and defaults (the contract's defaults table).
 *
 * @param segmentBytes       {@code segment.bytes}: a segment rolls before a batch would push it past this
 * @param segmentIndexBytes  {@code segment.index.bytes}: preallocated size of each index file
 * @param indexIntervalBytes {@code index.interval.bytes}: log bytes between two offset-index entries
 * @param maxMessageBytes    {@code max.message.bytes}: largest batch a leader append accepts
 * @param flushMessages      {@code flush.messages}: records appended between two automatic flushes
 * @param flushMs            {@code flush.ms}: longest time unflushed data may wait for an automatic flush
 * @param retentionMs        {@code retention.ms} (-1: unlimited)
 * @param retentionBytes     {@code retention.bytes} (-1: unlimited)
 */
public record LogConfig(int segmentBytes, int segmentIndexBytes, int indexIntervalBytes, int maxMessageBytes,
                        long flushMessages, long flushMs, long retentionMs, long retentionBytes) {

    /** Smallest {@code segment.index.bytes}: two time-index entries, one of them reserved for the roll. */
    public static final int MIN_SEGMENT_INDEX_BYTES = 24;
    /** Smallest {@code segment.bytes}: one batch header. */
    public static final int MIN_SEGMENT_BYTES = 61;

    /** Checks every value is usable; the message names the property. */
    public LogConfig {
        if (segmentBytes < MIN_SEGMENT_BYTES) {
            throw new IllegalArgumentException("segment.bytes " + segmentBytes + " is below " + MIN_SEGMENT_BYTES);
        }
        if (segmentIndexBytes < MIN_SEGMENT_INDEX_BYTES) {
            throw new IllegalArgumentException("segment.index.bytes " + segmentIndexBytes + " is below "
                    + MIN_SEGMENT_INDEX_BYTES);
        }
        if (indexIntervalBytes < 0) {
            throw new IllegalArgumentException("index.interval.bytes " + indexIntervalBytes + " is negative");
        }
        if (maxMessageBytes < 0) {
            throw new IllegalArgumentException("max.message.bytes " + maxMessageBytes + " is negative");
        }
        if (flushMessages < 1) {
            throw new IllegalArgumentException("flush.messages " + flushMessages + " is below 1");
        }
        if (flushMs < 0) {
            throw new IllegalArgumentException("flush.ms " + flushMs + " is negative");
        }
        if (retentionMs < -1) {
            throw new IllegalArgumentException("retention.ms " + retentionMs + " is below -1");
        }
        if (retentionBytes < -1) {
            throw new IllegalArgumentException("retention.bytes " + retentionBytes + " is below -1");
        }
    }

    /** Kafka's defaults. */
    public static LogConfig defaults() {
        return new LogConfig(1024 * 1024 * 1024, 10 * 1024 * 1024, 4096, 1048588,
                Long.MAX_VALUE, Long.MAX_VALUE, 604800000L, -1L);
    }

    public LogConfig withSegmentBytes(int value) {
        return new LogConfig(value, segmentIndexBytes, indexIntervalBytes, maxMessageBytes, flushMessages, flushMs,
                retentionMs, retentionBytes);
    }

    public LogConfig withSegmentIndexBytes(int value) {
        return new LogConfig(segmentBytes, value, indexIntervalBytes, maxMessageBytes, flushMessages, flushMs,
                retentionMs, retentionBytes);
    }

    public LogConfig withIndexIntervalBytes(int value) {
        return new LogConfig(segmentBytes, segmentIndexBytes, value, maxMessageBytes, flushMessages, flushMs,
                retentionMs, retentionBytes);
    }

    public LogConfig withMaxMessageBytes(int value) {
        return new LogConfig(segmentBytes, segmentIndexBytes, indexIntervalBytes, value, flushMessages, flushMs,
                retentionMs, retentionBytes);
    }

    public LogConfig withFlushMessages(long value) {
        return new LogConfig(segmentBytes, segmentIndexBytes, indexIntervalBytes, maxMessageBytes, value, flushMs,
                retentionMs, retentionBytes);
    }

    public LogConfig withFlushMs(long value) {
        return new LogConfig(segmentBytes, segmentIndexBytes, indexIntervalBytes, maxMessageBytes, flushMessages, value,
                retentionMs, retentionBytes);
    }

    public LogConfig withRetentionMs(long value) {
        return new LogConfig(segmentBytes, segmentIndexBytes, indexIntervalBytes, maxMessageBytes, flushMessages, flushMs,
                value, retentionBytes);
    }

    public LogConfig withRetentionBytes(long value) {
        return new LogConfig(segmentBytes, segmentIndexBytes, indexIntervalBytes, maxMessageBytes, flushMessages, flushMs,
                retentionMs, value);
    }
}
