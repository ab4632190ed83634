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

package dev.insync.replication.core.purgatory;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One level of a hierarchical timing wheel: {@code wheelSize} buckets of {@code tickMs} each. A
 * deadline beyond this wheel's span goes to an overflow wheel (created on first need) whose tick is
 * this wheel's whole span; when an overflow bucket expires, its entries are re-added and fall into
 * finer wheels. Each entry is therefore moved at most once per level: O(1) for bounded delays.
 *
 * <p>Entries are placed by a key {@code deadline + roundUpMs}, where {@code roundUpMs} is the finest
 * tick minus one: a bucket is flushed at the start of its span, so shifting the key makes the
 * finest bucket start at or after the deadline. Tasks thus never fire early and fire at most one
 * finest tick late. Guarded by the owning timer's lock.
 */
final class TimingWheel {

    private final long tickMs;
    private final int wheelSize;
    private final long intervalMs;
    private final long roundUpMs;
    private final TimerTaskList[] buckets;
    private final AtomicInteger taskCounter;
    private final Consumer<TimerTaskList> onBucketScheduled;
    private long currentTimeMs;
    private TimingWheel overflowWheel;

    TimingWheel(long tickMs, int wheelSize, long roundUpMs, long startMs, AtomicInteger taskCounter,
                Consumer<TimerTaskList> onBucketScheduled) {
        this.tickMs = tickMs;
        this.wheelSize = wheelSize;
        // Saturate: the deepest wheel a 2^62 ms deadline needs would otherwise overflow.
        this.intervalMs = tickMs > Long.MAX_VALUE / wheelSize ? Long.MAX_VALUE : tickMs * wheelSize;
        this.roundUpMs = roundUpMs;
        this.taskCounter = taskCounter;
        this.onBucketScheduled = onBucketScheduled;
        this.currentTimeMs = startMs - (startMs % tickMs);
        this.buckets = new TimerTaskList[wheelSize];
        for (int i = 0; i < wheelSize; i++) {
            buckets[i] = new TimerTaskList(taskCounter);
        }
    }

    /**
     * Places {@code entry} in a bucket. Returns false if the entry is already due (or cancelled) and
     * was not placed; the caller runs due entries.
     */
    boolean add(TimerTaskEntry entry) {
        if (entry.cancelled()) {
            return false;
        }
        long key = entry.deadlineMs + roundUpMs;
        long aheadMs = key - currentTimeMs;
        if (aheadMs < tickMs) {
            return false;
        }
        if (aheadMs < intervalMs) {
            long virtualId = key / tickMs;
            TimerTaskList bucket = buckets[(int) (virtualId % wheelSize)];
            bucket.add(entry);
            if (bucket.setExpiration(virtualId * tickMs)) {
                onBucketScheduled.accept(bucket);
            }
            return true;
        }
        return overflowWheel().add(entry);
    }

    /** Moves this wheel (and its overflow wheels) to {@code timeMs}, rounded down to a tick. */
    void advanceClock(long timeMs) {
        if (timeMs - currentTimeMs >= tickMs) {
            currentTimeMs = timeMs - (timeMs % tickMs);
            if (overflowWheel != null) {
                overflowWheel.advanceClock(currentTimeMs);
            }
        }
    }

    private TimingWheel overflowWheel() {
        if (overflowWheel == null) {
            overflowWheel = new TimingWheel(intervalMs, wheelSize, roundUpMs, currentTimeMs, taskCounter,
                onBucketScheduled);
        }
        return overflowWheel;
    }
}
