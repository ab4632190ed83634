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

package dev.insync.replication.log.epoch;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.CheckpointFile;
import dev.insync.replication.log.checkpoint.CorruptCheckpointException;
import dev.insync.replication.log.checkpoint.EntryFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * LOG-8: the ordered (epoch, startOffset) list of one partition, persisted to its
 * {@code leader-epoch-checkpoint} (LOG-9). Kafka's {@code LeaderEpochFileCache}.
 *
 * <p>Epochs and start offsets are strictly increasing (INV-8); every mutation checks it and throws
 * {@link IllegalStateException} naming the partition if it would break.
 *
 * <p>Thread-safe. Mutations are serialized by a lock and build a new immutable list, which is
 * written to the checkpoint file <em>before</em> it becomes visible, so readers (lock-free, on a
 * volatile snapshot) never see an entry that is not on disk, and a failed write changes nothing.
 * Kafka may write truncations lazily; we write every change synchronously (changes are rare: one
 * per leader epoch, truncation or log-start move).
 */
public final class LeaderEpochCache {

    /** The file name inside a partition's log directory. */
    public static final String CHECKPOINT_FILE_NAME = "leader-epoch-checkpoint";

    /** The {@code epoch startOffset} line format of {@code leader-epoch-checkpoint}. */
    public static final EntryFormat<EpochEntry> FORMAT = new EntryFormat<>() {
        @Override
        public String format(EpochEntry entry) {
            return entry.epoch() + " " + entry.startOffset();
        }

        @Override
        public EpochEntry parse(String line) {
            String[] fields = EntryFormat.fields(line, 2);
            return new EpochEntry(EntryFormat.nonNegativeInt(fields[0], "epoch"),
                    EntryFormat.nonNegativeLong(fields[1], "start offset"));
        }
    };

    private static final Logger log = LoggerFactory.getLogger(LeaderEpochCache.class);

    private final TopicPartition topicPartition;
    /** Null for an in-memory cache. */
    private final CheckpointFile<EpochEntry> checkpoint;
    private final ReentrantLock mutationLock = new ReentrantLock();
    private volatile List<EpochEntry> entries;

    private LeaderEpochCache(TopicPartition topicPartition, CheckpointFile<EpochEntry> checkpoint,
                             List<EpochEntry> entries) {
        this.topicPartition = topicPartition;
        this.checkpoint = checkpoint;
        this.entries = List.copyOf(entries);
    }

    /**
     * Loads the cache from {@code checkpointFile} (a missing or empty file is an empty cache) and
     * persists every later change to it.
     *
     * @throws CorruptCheckpointException naming the file and line if the file is malformed or its
     *                                    entries are not strictly increasing (INV-8)
     * @throws ApiException               KAFKA_STORAGE_ERROR on an I/O failure
     */
    public static LeaderEpochCache load(Path checkpointFile, TopicPartition topicPartition) {
        return load(checkpointFile, topicPartition, FileSync.durable());
    }

    /**
     * As {@link #load(Path, TopicPartition)}, writing through {@code fileSync} (the owning log
     * directory's durability and fault hook).
     */
    public static LeaderEpochCache load(Path checkpointFile, TopicPartition topicPartition, FileSync fileSync) {
        Objects.requireNonNull(topicPartition, "topicPartition");
        CheckpointFile<EpochEntry> checkpoint = new CheckpointFile<>(checkpointFile, FORMAT, fileSync);
        List<EpochEntry> loaded = checkpoint.read();
        for (int i = 1; i < loaded.size(); i++) {
            if (!increasing(loaded.get(i - 1), loaded.get(i))) {
                // Entries start on line 3 of a checkpoint file.
                throw new CorruptCheckpointException(checkpointFile, i + 3, "entry " + loaded.get(i)
                        + " does not follow " + loaded.get(i - 1) + " strictly increasing (INV-8) for "
                        + topicPartition, null);
            }
        }
        return new LeaderEpochCache(topicPartition, checkpoint, loaded);
    }

    /** A cache that is never written anywhere: for tests and logs that keep no epoch file. */
    public static LeaderEpochCache inMemory(TopicPartition topicPartition) {
        return new LeaderEpochCache(Objects.requireNonNull(topicPartition, "topicPartition"), null, List.of());
    }

    /** The partition this cache belongs to. */
    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /** The checkpoint file, empty for an in-memory cache. */
    public Optional<Path> file() {
        return checkpoint == null ? Optional.empty() : Optional.of(checkpoint.file());
    }

    /**
     * LOG-8: records that {@code epoch} starts at {@code startOffset}. Added when the epoch differs
     * from the latest one, or is the latest with a smaller start offset; before adding, every tail
     * entry whose epoch or start offset is at or above the new one is removed. The latest epoch
     * with an equal or larger start offset is ignored. Written to the file before returning.
     *
     * @throws IllegalArgumentException if epoch or startOffset is negative (nothing changes)
     * @throws ApiException             KAFKA_STORAGE_ERROR if the file cannot be written (nothing changes)
     */
    public void assign(int epoch, long startOffset) {
        if (epoch < 0 || startOffset < 0) {
            throw new IllegalArgumentException("Invalid leader epoch entry (epoch " + epoch + ", start offset "
                    + startOffset + ") for " + topicPartition);
        }
        EpochEntry entry = new EpochEntry(epoch, startOffset);
        if (!isUpdateNeeded(entries, entry)) {
            return; // The common case (same epoch, later offset) takes no lock.
        }
        mutate(current -> {
            if (!isUpdateNeeded(current, entry)) {
                return current;
            }
            List<EpochEntry> next = new ArrayList<>(current);
            List<EpochEntry> removed = appendRemovingTail(next, entry);
            if (removed.size() > 1 || (removed.size() == 1 && removed.get(0).startOffset() != startOffset)) {
                log.warn("New epoch entry {} for {} removed non-monotonic entries {}", entry, topicPartition, removed);
            }
            return next;
        });
    }

    /**
     * LOG-8's assign on a mutable copy: removes from the tail every entry whose epoch or start offset
     * is at or above {@code entry}'s, then appends {@code entry}.
     *
     * @return the removed entries, latest first
     */
    private static List<EpochEntry> appendRemovingTail(List<EpochEntry> next, EpochEntry entry) {
        List<EpochEntry> removed = new ArrayList<>();
        while (!next.isEmpty()) {
            EpochEntry last = next.get(next.size() - 1);
            if (last.epoch() < entry.epoch() && last.startOffset() < entry.startOffset()) {
                break;
            }
            removed.add(next.remove(next.size() - 1));
        }
        next.add(entry);
        return removed;
    }

    /**
     * LOG-7/LOG-8, recovery: assigns (as {@link #assign}), in order and in one write, every entry of
     * {@code found} (the epoch starts seen in the batches, oldest first) whose epoch is above the
     * latest epoch known by then, as Kafka's segment recovery assigns only epochs newer than the
     * cache's latest. So a missing or empty checkpoint is rebuilt from the batches, and a checkpoint
     * that lags the log catches up, while epochs already known keep their recorded start offsets; a
     * latest entry at or above a newer epoch's start (an epoch that wrote nothing there before a
     * crash) gives way to it.
     *
     * @return the entries added
     * @throws ApiException KAFKA_STORAGE_ERROR if the file cannot be written (nothing changes)
     */
    public List<EpochEntry> assignNewerEpochs(List<EpochEntry> found) {
        List<EpochEntry> added = new ArrayList<>();
        mutate(current -> {
            List<EpochEntry> next = new ArrayList<>(current);
            for (EpochEntry entry : found) {
                if (next.isEmpty() || entry.epoch() > next.get(next.size() - 1).epoch()) {
                    appendRemovingTail(next, entry);
                    added.add(entry);
                }
            }
            return added.isEmpty() ? current : next;
        });
        return List.copyOf(added);
    }

    private static boolean isUpdateNeeded(List<EpochEntry> current, EpochEntry entry) {
        if (current.isEmpty()) {
            return true;
        }
        EpochEntry latest = current.get(current.size() - 1);
        return entry.epoch() != latest.epoch() || entry.startOffset() < latest.startOffset();
    }

    /**
     * LOG-8: where {@code requestedEpoch} ends, as a follower or consumer asks it.
     * <ul>
     *   <li>the latest epoch: (latestEpoch, {@code logEndOffset});</li>
     *   <li>otherwise, with a known epoch above it: (largest known epoch ≤ requested, start offset of
     *       the first epoch &gt; requested);</li>
     *   <li>below every known epoch: (requested, start offset of the first epoch);</li>
     *   <li>{@link EpochEndOffset#UNDEFINED_EPOCH undefined}, above every known epoch, or an empty
     *       cache: {@link EpochEndOffset#UNDEFINED}.</li>
     * </ul>
     */
    public EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
        List<EpochEntry> snapshot = entries;
        if (requestedEpoch < 0 || snapshot.isEmpty()) {
            return EpochEndOffset.UNDEFINED;
        }
        EpochEntry latest = snapshot.get(snapshot.size() - 1);
        if (latest.epoch() == requestedEpoch) {
            // The current epoch is still being written: it ends at the LEO.
            return new EpochEndOffset(requestedEpoch, logEndOffset);
        }
        EpochEntry floor = null;
        for (EpochEntry entry : snapshot) {
            if (entry.epoch() > requestedEpoch) {
                // The first epoch after the requested one starts where the requested one ends. If
                // nothing is known at or below it, that data is gone (truncated from the start);
                // answering with the requested epoch lets the follower start from here.
                return floor == null
                        ? new EpochEndOffset(requestedEpoch, entry.startOffset())
                        : new EpochEndOffset(floor.epoch(), entry.startOffset());
            }
            floor = entry;
        }
        return EpochEndOffset.UNDEFINED; // Above every known epoch.
    }

    /**
     * LOG-6/LOG-8: removes every entry whose start offset is at or above {@code endOffset}, after the
     * log was truncated to it.
     *
     * @throws IllegalArgumentException if endOffset is negative
     * @throws ApiException             KAFKA_STORAGE_ERROR if the file cannot be written (nothing changes)
     */
    public void truncateFromEnd(long endOffset) {
        if (endOffset < 0) {
            throw new IllegalArgumentException("Negative end offset " + endOffset + " for the epoch cache of "
                    + topicPartition);
        }
        mutate(current -> {
            if (current.isEmpty() || current.get(current.size() - 1).startOffset() < endOffset) {
                return current;
            }
            return current.stream().filter(e -> e.startOffset() < endOffset).toList();
        });
    }

    /**
     * LOG-8/LOG-10: after the log start offset moved to {@code startOffset}, drops every entry
     * before it except the last one starting at or below it, whose start becomes {@code startOffset}.
     *
     * @throws IllegalArgumentException if startOffset is negative
     * @throws ApiException             KAFKA_STORAGE_ERROR if the file cannot be written (nothing changes)
     */
    public void truncateFromStart(long startOffset) {
        if (startOffset < 0) {
            throw new IllegalArgumentException("Negative start offset " + startOffset + " for the epoch cache of "
                    + topicPartition);
        }
        mutate(current -> {
            if (current.isEmpty() || current.get(0).startOffset() >= startOffset) {
                return current;
            }
            List<EpochEntry> next = new ArrayList<>();
            EpochEntry lastCovered = null;
            for (EpochEntry entry : current) {
                if (entry.startOffset() <= startOffset) {
                    lastCovered = entry;
                } else {
                    next.add(entry);
                }
            }
            next.add(0, new EpochEntry(lastCovered.epoch(), startOffset));
            return next;
        });
    }

    /**
     * The epoch of the last entry starting at or below {@code offset}, or empty if {@code offset} is
     * before every entry.
     */
    public OptionalInt epochForOffset(long offset) {
        OptionalInt epoch = OptionalInt.empty();
        for (EpochEntry entry : entries) {
            if (entry.startOffset() > offset) {
                break;
            }
            epoch = OptionalInt.of(entry.epoch());
        }
        return epoch;
    }

    /** The epoch of the latest entry, empty if the cache is empty. */
    public OptionalInt latestEpoch() {
        List<EpochEntry> snapshot = entries;
        return snapshot.isEmpty() ? OptionalInt.empty() : OptionalInt.of(snapshot.get(snapshot.size() - 1).epoch());
    }

    /** The latest entry, empty if the cache is empty. */
    public Optional<EpochEntry> latestEntry() {
        List<EpochEntry> snapshot = entries;
        return snapshot.isEmpty() ? Optional.empty() : Optional.of(snapshot.get(snapshot.size() - 1));
    }

    /** The earliest entry, empty if the cache is empty. */
    public Optional<EpochEntry> earliestEntry() {
        List<EpochEntry> snapshot = entries;
        return snapshot.isEmpty() ? Optional.empty() : Optional.of(snapshot.get(0));
    }

    /** Whether the cache has no entries. */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** An immutable snapshot of the entries, oldest first. */
    public List<EpochEntry> epochEntries() {
        return entries;
    }

    /**
     * Removes every entry (LOG-6 {@code truncateFullyAndStartAt}) and writes the empty file.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR if the file cannot be written (nothing changes)
     */
    public void clear() {
        mutate(current -> current.isEmpty() ? current : List.of());
    }

    /**
     * Applies {@code change} under the mutation lock; a changed list is checked (INV-8), written,
     * then published.
     */
    private void mutate(UnaryOperator<List<EpochEntry>> change) {
        mutationLock.lock();
        try {
            List<EpochEntry> current = entries;
            List<EpochEntry> next = change.apply(current);
            if (next == current) {
                return;
            }
            next = List.copyOf(next);
            checkStrictlyIncreasing(next);
            if (checkpoint != null) {
                checkpoint.write(next);
            }
            entries = next;
        } finally {
            mutationLock.unlock();
        }
    }

    private void checkStrictlyIncreasing(List<EpochEntry> candidate) {
        for (int i = 1; i < candidate.size(); i++) {
            if (!increasing(candidate.get(i - 1), candidate.get(i))) {
                throw new IllegalStateException("INV-8 violated for " + topicPartition + ": entry " + candidate.get(i)
                        + " does not follow " + candidate.get(i - 1) + " in " + candidate);
            }
        }
    }

    private static boolean increasing(EpochEntry previous, EpochEntry next) {
        return next.epoch() > previous.epoch() && next.startOffset() > previous.startOffset();
    }

    @Override
    public String toString() {
        return "LeaderEpochCache(" + topicPartition + ", " + entries + ")";
    }
}
