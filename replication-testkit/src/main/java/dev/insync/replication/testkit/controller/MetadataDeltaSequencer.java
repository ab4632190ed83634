package dev.insync.replication.testkit.controller;

import dev.insync.replication.core.metadata.MetadataDelta;

import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Broker-side helper that applies the controller's metadata deltas exactly once and in offset
 * order, whatever the network did to them: duplicates (re-sends) are ignored, early arrivals wait
 * (bounded) for the gap to fill, which the controller does when a heartbeat shows the broker behind.
 * {@link #appliedOffset()} is what the broker reports in its heartbeats. Not thread-safe: use it
 * from the broker's network executor.
 */
public final class MetadataDeltaSequencer {

    /** Default bound on deltas waiting for a gap. */
    public static final int DEFAULT_MAX_BUFFERED = 10_000;

    private final Consumer<MetadataDelta> applier;
    private final int maxBuffered;
    private final TreeMap<Long, MetadataDelta> waiting = new TreeMap<>();
    private long appliedOffset = -1;

    /** Applies in-order deltas to {@code applier} (e.g. {@code ReplicaManager::applyMetadataDelta}). */
    public MetadataDeltaSequencer(Consumer<MetadataDelta> applier) {
        this(applier, DEFAULT_MAX_BUFFERED);
    }

    /** As above with an explicit bound on out-of-order deltas kept. */
    public MetadataDeltaSequencer(Consumer<MetadataDelta> applier, int maxBuffered) {
        this.applier = Objects.requireNonNull(applier, "applier");
        if (maxBuffered < 1) {
            throw new IllegalArgumentException("maxBuffered must be positive, got " + maxBuffered);
        }
        this.maxBuffered = maxBuffered;
    }

    /** Accepts one delta; applies it and any waiting successors if it is the next one. */
    public void accept(MetadataDelta delta) {
        if (delta.offset() <= appliedOffset) {
            return;
        }
        if (delta.offset() != appliedOffset + 1) {
            if (waiting.size() >= maxBuffered && !waiting.containsKey(delta.offset())) {
                // Drop the furthest one: the controller re-sends everything after our applied offset.
                if (waiting.lastKey() < delta.offset()) {
                    return;
                }
                waiting.pollLastEntry();
            }
            waiting.put(delta.offset(), delta);
            return;
        }
        applier.accept(delta);
        appliedOffset = delta.offset();
        while (!waiting.isEmpty() && waiting.firstKey() <= appliedOffset + 1) {
            MetadataDelta next = waiting.pollFirstEntry().getValue();
            if (next.offset() == appliedOffset + 1) {
                applier.accept(next);
                appliedOffset = next.offset();
            }
        }
    }

    /** Offset of the last applied delta, -1 before the first. */
    public long appliedOffset() {
        return appliedOffset;
    }

    /** Deltas waiting for a gap to fill. */
    public int bufferedCount() {
        return waiting.size();
    }
}
