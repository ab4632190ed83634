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

package dev.insync.replication.core.metadata.follower;

import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * CTL-5, broker side: follows the committed metadata log for one broker and applies it to that
 * broker's {@link ReplicaManager}, which it owns as a metadata source (nothing else may feed it
 * deltas). It
 * <ul>
 *   <li>long-polls {@link MetadataChannel#fetchMetadata} from the last offset it has, one request at
 *       a time; a failed request is retried after {@code retryBackoffMs}, an unanswered one is
 *       abandoned after {@code fetchMaxWaitMs + requestTimeoutMs} and sent again, and an answer to
 *       anything but the current request (or not for the offset it asked from) is dropped, so deltas
 *       are applied in strict offset order, each exactly once;</li>
 *   <li>loads an image when the controller sends one (the log it needed is gone): a full replace,
 *       so partitions the broker knew that the image lacks are removed from it;</li>
 *   <li>does the <em>initial-load merge</em>: a new incarnation receives the whole history, and must
 *       not act on the historical states one by one (a replayed old registration naming it leader
 *       of an old epoch would make it {@code makeLeader} in that epoch and write the stale epoch
 *       into its leader-epoch cache at its LEO, destroying the entries that let truncation find a
 *       divergence). So until it has received the delta of its own registration (offset at or
 *       past its broker epoch) it only merges what it receives into one image, then applies that
 *       image once, and has the replica manager delete the logs that image assigns elsewhere or
 *       does not know ({@link ReplicaManager#deleteStrayLogs}); later deltas pass straight through.</li>
 * </ul>
 *
 * <p>Wiring, for broker {@code id}:
 * <pre>{@code
 * MetadataFollower metadata = new MetadataFollower(replicaManager, metadataChannel, scheduler, Settings.DEFAULT);
 * BrokerLifecycleManager lifecycle = BrokerLifecycleManager.builder(id, controllerChannel, scheduler)
 *         .previousBrokerEpoch(previousEpoch).heartbeatIntervalMs(heartbeatIntervalMs)
 *         .metadataOffset(metadata::appliedOffset).build();
 * metadata.start(lifecycle.start());   // the first broker epoch ends the initial load
 * }</pre>
 * All work runs on a serial executor of the given scheduler; public methods may be called from
 * any thread.
 *
 * <p>What the follower has applied is also kept as a {@link #image() metadata image} of the whole
 * cluster (every broker and partition, not only those hosted here), which is what a broker answers
 * client Metadata requests from.
 */
public final class MetadataFollower implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MetadataFollower.class);

    /**
     * How the follower polls.
     *
     * @param fetchMaxWaitMs    how long the controller may hold a fetch while nothing is new
     * @param retryBackoffMs    delay before retrying a failed fetch
     * @param requestTimeoutMs  a fetch unanswered this long after {@code fetchMaxWaitMs} is abandoned and sent again
     * @param maxDeltasPerFetch bound on the deltas of one answer
     */
    public record Settings(long fetchMaxWaitMs, long retryBackoffMs, long requestTimeoutMs, int maxDeltasPerFetch) {

        /** 500 ms long polls (as {@code replica.fetch.wait.max.ms}), 100 ms backoff, 2 s timeout, 1000 deltas. */
        public static final Settings DEFAULT = new Settings(500, 100, 2_000, 1_000);

        /** Validates. */
        public Settings {
            if (fetchMaxWaitMs < 0 || retryBackoffMs < 0 || requestTimeoutMs < 1 || maxDeltasPerFetch < 1) {
                throw new IllegalArgumentException("Invalid metadata follower settings: fetchMaxWaitMs=" + fetchMaxWaitMs
                        + ", retryBackoffMs=" + retryBackoffMs + ", requestTimeoutMs=" + requestTimeoutMs
                        + ", maxDeltasPerFetch=" + maxDeltasPerFetch);
            }
        }
    }

    private final ReplicaManager replicaManager;
    private final MetadataChannel channel;
    private final Scheduler scheduler;
    private final Settings settings;
    private final Executor executor;
    private final int brokerId;

    // Owned by the executor.
    private long receivedOffset = -1;
    private long brokerEpoch = -1;
    private volatile boolean loaded;
    private final InitialImage initial = new InitialImage();
    private final Set<TopicPartition> knownPartitions = new HashSet<>();
    private long fetchSeq;
    private Scheduler.Cancellable timer;

    private final Object lifecycleLock = new Object();
    private boolean started;
    private volatile boolean closed;
    private volatile long appliedOffset = -1;
    private final CompletableFuture<Long> initialLoad = new CompletableFuture<>();
    private final AppliedImage applied = new AppliedImage();

    /**
     * @param replicaManager the broker's replica manager; it must not have applied any metadata yet
     * @param channel        the way to the controller nodes' metadata
     * @param scheduler      timers and the follower's serial executor
     * @param settings       polling settings
     */
    public MetadataFollower(ReplicaManager replicaManager, MetadataChannel channel, Scheduler scheduler,
                            Settings settings) {
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
        this.channel = Objects.requireNonNull(channel, "channel");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.brokerId = replicaManager.brokerId();
        this.executor = scheduler.newSerialExecutor("MetadataFollower-" + brokerId);
    }

    /**
     * Starts following. Fetching begins at once; the initial load completes once
     * {@code registeredBrokerEpoch} (the first broker epoch of this incarnation, e.g.
     * {@code BrokerLifecycleManager.start()}) is known and the metadata up to it has arrived.
     *
     * @throws IllegalStateException if started before, or if the replica manager already applied
     *                               metadata from another source
     */
    public void start(CompletionStage<Long> registeredBrokerEpoch) {
        Objects.requireNonNull(registeredBrokerEpoch, "registeredBrokerEpoch");
        synchronized (lifecycleLock) {
            if (started) {
                throw new IllegalStateException("Metadata follower of broker " + brokerId + " is already started");
            }
            if (replicaManager.lastAppliedMetadataOffset() != -1) {
                throw new IllegalStateException("Replica manager of broker " + brokerId + " already applied metadata up to "
                        + replicaManager.lastAppliedMetadataOffset() + ": the metadata follower must be its only source");
            }
            started = true;
        }
        registeredBrokerEpoch.whenComplete((epoch, error) -> run(() -> onRegistered(epoch, error)));
        run(this::fetch);
    }

    /** Offset of the last metadata applied to the replica manager, -1 before the initial load: heartbeats carry it. */
    public long appliedOffset() {
        return appliedOffset;
    }

    /** Whether the initial load is done (later deltas are applied as they come). */
    public boolean isLoaded() {
        return loaded;
    }

    /**
     * Completes with the metadata offset of the initial load once it has been applied to the
     * replica manager (the broker may then serve requests, as a KRaft broker enables its request
     * processing once it has caught up); fails if the follower is closed first.
     */
    public CompletionStage<Long> initialLoad() {
        return initialLoad.minimalCompletionStage();
    }

    /**
     * The cluster's metadata as this broker has applied it: every broker registration, every
     * partition and every topic's {@code min.insync.replicas}, at {@link #appliedOffset()} (offset -1
     * and empty before the initial load). A consistent copy; thread-safe.
     */
    public MetadataImage image() {
        return applied.snapshot();
    }

    /** Stops fetching; answers arriving later are dropped. Idempotent. */
    @Override
    public void close() {
        closed = true;
        initialLoad.completeExceptionally(new IllegalStateException("Metadata follower of broker " + brokerId
                + " closed before its initial load"));
        run(this::cancelTimer);
    }

    // ------------------------------------------------------------------------------------ fetching

    private void fetch() {
        if (closed) {
            return;
        }
        cancelTimer();
        long seq = ++fetchSeq;
        MetadataFetchRequest request = new MetadataFetchRequest(brokerId, receivedOffset, settings.fetchMaxWaitMs(),
                settings.maxDeltasPerFetch());
        timer = scheduler.schedule(executor, () -> onTimeout(seq), settings.fetchMaxWaitMs() + settings.requestTimeoutMs());
        CompletionStage<MetadataFetchResponse> stage;
        try {
            stage = channel.fetchMetadata(request);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((response, error) -> run(() -> onResponse(seq, response, error)));
    }

    private void onTimeout(long seq) {
        if (seq != fetchSeq || closed) {
            return;
        }
        log.warn("Broker {}: metadata fetch after offset {} unanswered for {} ms; sending it again", brokerId,
                receivedOffset, settings.fetchMaxWaitMs() + settings.requestTimeoutMs());
        fetch();
    }

    private void onResponse(long seq, MetadataFetchResponse response, Throwable error) {
        if (seq != fetchSeq || closed) {
            return; // abandoned, or superseded
        }
        cancelTimer();
        if (error != null) {
            log.debug("Broker {}: metadata fetch after offset {} failed ({}); retrying in {} ms", brokerId, receivedOffset,
                    error.toString(), settings.retryBackoffMs());
            timer = scheduler.schedule(executor, this::fetch, settings.retryBackoffMs());
            return;
        }
        if (response.afterOffset() != receivedOffset) {
            log.warn("Broker {}: dropping a metadata answer after offset {}; expected one after {}", brokerId,
                    response.afterOffset(), receivedOffset);
            timer = scheduler.schedule(executor, this::fetch, settings.retryBackoffMs());
            return;
        }
        response.image().ifPresent(this::receiveImage);
        for (MetadataDelta delta : response.deltas()) {
            receiveDelta(delta);
        }
        maybeFinishInitialLoad();
        fetch();
    }

    // ------------------------------------------------------------------------------------ applying

    private void receiveImage(MetadataImage image) {
        if (image.offset() <= receivedOffset) {
            log.warn("Broker {}: ignoring a metadata image at offset {}, already at {}", brokerId, image.offset(),
                    receivedOffset);
            return;
        }
        receivedOffset = image.offset();
        if (loaded) {
            log.info("Broker {}: loading a metadata image at offset {} (the log after our offset is gone)", brokerId,
                    image.offset());
            apply(image.asDeltaReplacing(knownPartitions));
        } else {
            initial.reset(image);
        }
    }

    private void receiveDelta(MetadataDelta delta) {
        if (delta.offset() <= receivedOffset) {
            return; // already have it (behind an image)
        }
        receivedOffset = delta.offset();
        if (loaded) {
            apply(delta);
        } else {
            initial.merge(delta);
        }
    }

    private void onRegistered(Long epoch, Throwable error) {
        if (error != null || epoch == null) {
            log.debug("Broker {}: no broker epoch ({}); the initial metadata load waits", brokerId, error);
            return;
        }
        brokerEpoch = epoch;
        maybeFinishInitialLoad();
    }

    private void maybeFinishInitialLoad() {
        if (loaded || closed || brokerEpoch < 0 || receivedOffset < brokerEpoch) {
            return;
        }
        // CTL-5 / LDR-4: the history up to our own registration, applied as one current image.
        loaded = true;
        MetadataDelta image = initial.toDelta(receivedOffset);
        log.info("Broker {}: initial metadata load up to offset {} (broker epoch {}): {} partitions", brokerId,
                receivedOffset, brokerEpoch, image.partitions().size());
        apply(image);
        // The image is the whole state now: a log of a partition it does not assign here is a leftover.
        replicaManager.deleteStrayLogs();
        initial.clear();
        initialLoad.complete(image.offset());
    }

    private void apply(MetadataDelta delta) {
        replicaManager.applyMetadataDelta(delta);
        for (PartitionRegistration p : delta.partitions()) {
            knownPartitions.add(p.topicPartition());
        }
        delta.deletedPartitions().forEach(knownPartitions::remove);
        applied.apply(delta);
        appliedOffset = delta.offset();
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void run(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("Broker {}: metadata follower task dropped, its executor is stopped", brokerId);
        }
    }

    /**
     * What has been applied, for {@link #image()}: updated on the follower's executor, read from any
     * thread; a snapshot is copied only when asked for after a change.
     */
    private static final class AppliedImage {
        private final Map<Integer, BrokerRegistration> brokers = new TreeMap<>();
        private final Map<TopicPartition, PartitionRegistration> partitions = new LinkedHashMap<>();
        private final Map<String, Integer> minIsr = new TreeMap<>();
        private final Map<String, UUID> topicIds = new TreeMap<>();
        private long offset = -1;
        private MetadataImage cached = new MetadataImage(-1, List.of(), List.of(), Map.of(), Map.of());

        synchronized void apply(MetadataDelta delta) {
            delta.brokers().forEach(b -> brokers.put(b.brokerId(), b));
            delta.deletedPartitions().forEach(partitions::remove);
            delta.partitions().forEach(p -> partitions.put(p.topicPartition(), p));
            minIsr.putAll(delta.minInsyncReplicasByTopic());
            topicIds.putAll(delta.topicIds());
            offset = delta.offset();
            cached = null;
        }

        synchronized MetadataImage snapshot() {
            if (cached == null) {
                cached = new MetadataImage(offset, new ArrayList<>(brokers.values()), new ArrayList<>(partitions.values()),
                        minIsr, topicIds);
            }
            return cached;
        }
    }

    /** The state merged before the initial load: the latest registration of everything seen. */
    private static final class InitialImage {
        private final Map<Integer, BrokerRegistration> brokers = new LinkedHashMap<>();
        private final Map<TopicPartition, PartitionRegistration> partitions = new LinkedHashMap<>();
        private final Set<TopicPartition> deleted = new LinkedHashSet<>();
        private final Map<String, Integer> minIsr = new LinkedHashMap<>();
        private final Map<String, UUID> topicIds = new LinkedHashMap<>();

        void reset(MetadataImage image) {
            clear();
            image.brokers().forEach(b -> brokers.put(b.brokerId(), b));
            image.partitions().forEach(p -> partitions.put(p.topicPartition(), p));
            minIsr.putAll(image.minInsyncReplicasByTopic());
            topicIds.putAll(image.topicIds());
        }

        void merge(MetadataDelta delta) {
            delta.brokers().forEach(b -> brokers.put(b.brokerId(), b));
            for (TopicPartition tp : delta.deletedPartitions()) {
                partitions.remove(tp);
                deleted.add(tp);
            }
            for (PartitionRegistration p : delta.partitions()) {
                deleted.remove(p.topicPartition());
                partitions.put(p.topicPartition(), p);
            }
            minIsr.putAll(delta.minInsyncReplicasByTopic());
            // A topic deleted and created again keeps the later id: the broker then deletes a log of the earlier one.
            topicIds.putAll(delta.topicIds());
        }

        MetadataDelta toDelta(long offset) {
            return new MetadataDelta(offset, new ArrayList<>(brokers.values()), new ArrayList<>(partitions.values()),
                    new ArrayList<>(deleted), minIsr, topicIds);
        }

        void clear() {
            brokers.clear();
            partitions.clear();
            deleted.clear();
            minIsr.clear();
            topicIds.clear();
        }
    }
}
