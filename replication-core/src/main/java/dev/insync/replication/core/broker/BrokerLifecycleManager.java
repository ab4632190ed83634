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

package dev.insync.replication.core.broker;

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * LDR-4 / LDR-5, broker side: registers this broker incarnation with the controller, heartbeats,
 * tracks the broker epoch and fencing, and runs a controlled shutdown.
 *
 * <ul>
 *   <li>{@link #start()} registers with {@code registerBroker(brokerId, previousBrokerEpoch, endpoints)}, where
 *       {@code previousBrokerEpoch} is the epoch from the clean-shutdown marker or -1 after an
 *       unclean stop (LDR-5). A failed registration is retried after {@code retryBackoffMs}; an
 *       unanswered one is abandoned after one heartbeat interval and retried, until one succeeds.</li>
 *   <li>Once registered it heartbeats at once and then every {@code heartbeatIntervalMs}, carrying
 *       the current metadata offset. At most one heartbeat is in flight; one still unanswered at the
 *       next tick is abandoned (its late answer ignored) and a new one sent, so a lost link never
 *       stops heartbeats. A new incarnation is fenced until a heartbeat answer says otherwise.</li>
 *   <li>A heartbeat answered with {@code STALE_BROKER_EPOCH} means the controller no longer knows
 *       this incarnation: the broker re-registers (sending its current epoch as the previous one,
 *       since this process lost nothing) and gets a new epoch; {@link #brokerEpoch()} then returns
 *       it, so suppliers handed to e.g. the AlterPartition manager pick it up.</li>
 *   <li>Every heartbeat lists this broker's replicas whose log directory is offline (§9, Kafka's
 *       KIP-858); {@link #reportOfflineReplicas()} sends one at once when a directory fails, so the
 *       controller moves leadership away without waiting for the next tick.</li>
 *   <li>{@link #beginControlledShutdown()} sets {@code wantShutDown} on every following heartbeat
 *       (one is sent at once) and its future completes when an answer says {@code shouldShutDown}:
 *       leadership has moved away (ISR-7). Heartbeats then stop.</li>
 * </ul>
 *
 * <p>All work runs on the executor and scheduler it is given; no threads of its own. Public methods
 * may be called from any thread.
 */
public final class BrokerLifecycleManager implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BrokerLifecycleManager.class);

    /** The epoch before the first registration. */
    public static final long NO_EPOCH = -1L;

    /** Where this incarnation is in its life. */
    public enum State { NOT_STARTED, REGISTERING, RUNNING, SHUT_DOWN, CLOSED }

    private final int brokerId;
    private final long initialPreviousBrokerEpoch;
    private final ControllerChannel channel;
    private final Executor executor;
    private final Scheduler scheduler;
    private final long heartbeatIntervalMs;
    private final long retryBackoffMs;
    private final LongSupplier metadataOffset;
    private final Supplier<List<TopicPartition>> offlineReplicas;
    private final List<Endpoint> endpoints;

    private final Object lock = new Object();
    private final CompletableFuture<Long> initialRegistration = new CompletableFuture<>();
    private final CompletableFuture<Void> controlledShutdown = new CompletableFuture<>();
    private State state = State.NOT_STARTED;
    private volatile long brokerEpoch = NO_EPOCH;
    private volatile boolean fenced = true;
    private boolean wantShutDown;
    /** Identifies the current registration attempt or heartbeat; answers to older ones are ignored. */
    private long requestSeq;
    private boolean heartbeatInFlight;
    /** A heartbeat was asked for while one was in flight: send the next as soon as that one is answered. */
    private boolean heartbeatAgain;
    private Scheduler.Cancellable timer;

    private BrokerLifecycleManager(Builder b) {
        this.brokerId = b.brokerId;
        this.initialPreviousBrokerEpoch = b.previousBrokerEpoch;
        this.channel = b.channel;
        this.scheduler = b.scheduler;
        this.executor = b.executor != null ? b.executor
                : b.scheduler.newSerialExecutor("BrokerLifecycleManager-" + b.brokerId);
        this.heartbeatIntervalMs = b.heartbeatIntervalMs;
        this.retryBackoffMs = b.registrationRetryBackoffMs;
        this.metadataOffset = b.metadataOffset;
        this.offlineReplicas = b.offlineReplicas;
        this.endpoints = b.endpoints;
    }

    /**
     * A builder of broker {@code brokerId}'s lifecycle manager, which reaches the controller through
     * {@code channel} and sets its timers on {@code scheduler}.
     */
    public static Builder builder(int brokerId, ControllerChannel channel, Scheduler scheduler) {
        return new Builder(brokerId, channel, scheduler);
    }

    /**
     * Builds a {@link BrokerLifecycleManager}. Defaults: previous broker epoch {@link #NO_EPOCH} (an unclean
     * stop), a serial executor {@code BrokerLifecycleManager-<brokerId>} from the scheduler, Kafka's
     * {@code broker.heartbeat.interval.ms} default and Insync's registration retry backoff
     * ({@link ReplicationConfig#defaults()}), metadata offset -1, no offline replicas.
     */
    public static final class Builder {
        private final int brokerId;
        private final ControllerChannel channel;
        private final Scheduler scheduler;
        private long previousBrokerEpoch = NO_EPOCH;
        private Executor executor;
        private long heartbeatIntervalMs = ReplicationConfig.defaults().brokerHeartbeatIntervalMs();
        private long registrationRetryBackoffMs = ReplicationConfig.DEFAULT_BROKER_REGISTRATION_RETRY_BACKOFF_MS;
        private LongSupplier metadataOffset = () -> -1L;
        private Supplier<List<TopicPartition>> offlineReplicas = List::of;
        private List<Endpoint> endpoints = List.of();

        private Builder(int brokerId, ControllerChannel channel, Scheduler scheduler) {
            this.brokerId = brokerId;
            this.channel = Objects.requireNonNull(channel, "channel");
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        }

        /** LDR-5: the epoch from the clean-shutdown marker, or {@link #NO_EPOCH} after an unclean stop. */
        public Builder previousBrokerEpoch(long epoch) {
            this.previousBrokerEpoch = epoch;
            return this;
        }

        /** The serial executor all its work runs on. */
        public Builder executor(Executor serialExecutor) {
            this.executor = Objects.requireNonNull(serialExecutor, "executor");
            return this;
        }

        /** {@code broker.heartbeat.interval.ms}, at least 1 ({@link ReplicationConfig#brokerHeartbeatIntervalMs()}). */
        public Builder heartbeatIntervalMs(long ms) {
            if (ms < 1) {
                throw new IllegalArgumentException("Heartbeat interval of broker " + brokerId
                        + " must be at least 1 ms, got " + ms);
            }
            this.heartbeatIntervalMs = ms;
            return this;
        }

        /**
         * Delay before retrying a failed registration, at least 0
         * ({@link ReplicationConfig#brokerRegistrationRetryBackoffMs()}).
         */
        public Builder registrationRetryBackoffMs(long ms) {
            if (ms < 0) {
                throw new IllegalArgumentException("Negative registration retry backoff " + ms + " ms for broker "
                        + brokerId);
            }
            this.registrationRetryBackoffMs = ms;
            return this;
        }

        /** The offset of the metadata this broker has applied, read for every heartbeat. */
        public Builder metadataOffset(LongSupplier offset) {
            this.metadataOffset = Objects.requireNonNull(offset, "metadataOffset");
            return this;
        }

        /**
         * §9: the replicas whose log directory is offline, read for every heartbeat (e.g.
         * {@code ReplicaManager::offlineReplicas}).
         */
        public Builder offlineReplicas(Supplier<List<TopicPartition>> replicas) {
            this.offlineReplicas = Objects.requireNonNull(replicas, "offlineReplicas");
            return this;
        }

        /**
         * LDR-4: the advertised listeners every registration carries (Kafka's
         * {@code advertised.listeners}); default none.
         *
         * @throws IllegalArgumentException for more than {@link Endpoint#MAX_ENDPOINTS} or a repeated listener name
         */
        public Builder endpoints(List<Endpoint> advertised) {
            this.endpoints = Endpoint.checkedList(brokerId, advertised);
            return this;
        }

        /** The manager, not started ({@link BrokerLifecycleManager#start()}). */
        public BrokerLifecycleManager build() {
            return new BrokerLifecycleManager(this);
        }
    }

    /**
     * §9: a log directory failed; sends a heartbeat (with the offline replicas) now, or right after
     * the one in flight is answered, instead of at the next tick.
     */
    public void reportOfflineReplicas() {
        heartbeatSoon();
    }

    /**
     * LDR-4: the broker has caught up with the metadata up to its registration (its initial load is
     * applied); sends a heartbeat now, or right after the one in flight is answered, so that the
     * controller unfences it without waiting for the next tick (Kafka's broker does the same once
     * it is ready to unfence).
     */
    public void caughtUpWithMetadata() {
        heartbeatSoon();
    }

    private void heartbeatSoon() {
        synchronized (lock) {
            if (state != State.RUNNING) {
                return;
            }
            if (heartbeatInFlight) {
                heartbeatAgain = true;
                return;
            }
        }
        runOnExecutor(this::heartbeatNowIfIdle);
    }

    /**
     * Starts registering. Idempotent.
     *
     * @return completes with the first broker epoch this incarnation gets
     */
    public CompletableFuture<Long> start() {
        synchronized (lock) {
            if (state != State.NOT_STARTED) {
                return initialRegistration;
            }
            state = State.REGISTERING;
        }
        runOnExecutor(() -> register(initialPreviousBrokerEpoch));
        return initialRegistration;
    }

    /** The current broker epoch, {@link #NO_EPOCH} before the first registration. */
    public long brokerEpoch() {
        return brokerEpoch;
    }

    /** Whether the controller considers this broker fenced (true until a heartbeat says otherwise). */
    public boolean isFenced() {
        return fenced;
    }

    /** The current state. */
    public State state() {
        synchronized (lock) {
            return state;
        }
    }

    /** Completes with the first broker epoch this incarnation gets. */
    public CompletableFuture<Long> initialRegistration() {
        return initialRegistration;
    }

    /**
     * LDR-4: asks the controller for a controlled shutdown. Idempotent.
     *
     * @return completes when a heartbeat answer says {@code shouldShutDown}; at once if this broker
     *         never registered (it leads nothing); exceptionally if {@link #close()} comes first
     */
    public CompletableFuture<Void> beginControlledShutdown() {
        synchronized (lock) {
            if (wantShutDown || state == State.CLOSED || state == State.SHUT_DOWN) {
                return controlledShutdown;
            }
            wantShutDown = true;
            if (state == State.NOT_STARTED || brokerEpoch == NO_EPOCH) {
                log.info("Broker {} was never registered; controlled shutdown has nothing to move", brokerId);
                state = State.SHUT_DOWN;
                cancelTimer();
                requestSeq++;
                controlledShutdown.complete(null);
                return controlledShutdown;
            }
        }
        log.info("Broker {} requests a controlled shutdown", brokerId);
        runOnExecutor(this::heartbeatNowIfIdle);
        return controlledShutdown;
    }

    private void register(long previousEpoch) {
        long seq;
        synchronized (lock) {
            if (state != State.REGISTERING) {
                return;
            }
            seq = ++requestSeq;
            cancelTimer();
            // An unanswered registration is abandoned after one heartbeat interval and retried.
            timer = scheduler.schedule(executor, () -> registrationTimedOut(seq, previousEpoch), heartbeatIntervalMs);
        }
        log.info("Broker {} registering with previous broker epoch {}", brokerId, previousEpoch);
        CompletionStage<Long> stage;
        try {
            stage = channel.registerBroker(brokerId, previousEpoch, endpoints);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((epoch, error) -> runOnExecutor(() -> onRegistration(seq, previousEpoch, epoch, error)));
    }

    private void registrationTimedOut(long seq, long previousEpoch) {
        synchronized (lock) {
            if (seq != requestSeq || state != State.REGISTERING) {
                return;
            }
        }
        log.warn("Broker {} registration unanswered after {} ms; retrying", brokerId, heartbeatIntervalMs);
        register(previousEpoch);
    }

    private void onRegistration(long seq, long previousEpoch, Long epoch, Throwable error) {
        synchronized (lock) {
            if (seq != requestSeq || state != State.REGISTERING) {
                return;
            }
            cancelTimer();
            if (error != null || epoch == null) {
                log.warn("Broker {} registration failed ({}); retrying in {} ms", brokerId, error, retryBackoffMs);
                requestSeq++;
                timer = scheduler.schedule(executor, () -> register(previousEpoch), retryBackoffMs);
                return;
            }
            brokerEpoch = epoch;
            fenced = true; // LDR-4: a new incarnation is unfenced only once it has caught up with metadata
            state = State.RUNNING;
            heartbeatInFlight = false;
            // The first heartbeat goes out at once, then one per interval.
            timer = scheduler.schedulePeriodically(executor, this::heartbeatTick, heartbeatIntervalMs, heartbeatIntervalMs);
        }
        log.info("Broker {} registered with broker epoch {}", brokerId, epoch);
        sendHeartbeat();
        initialRegistration.complete(epoch);
    }

    private void heartbeatTick() {
        synchronized (lock) {
            if (state != State.RUNNING) {
                return;
            }
            if (heartbeatInFlight) {
                log.warn("Broker {} heartbeat unanswered after {} ms; sending a new one", brokerId, heartbeatIntervalMs);
            }
        }
        sendHeartbeat();
    }

    private void heartbeatNowIfIdle() {
        synchronized (lock) {
            if (state != State.RUNNING || heartbeatInFlight) {
                return;
            }
        }
        sendHeartbeat();
    }

    private void sendHeartbeat() {
        long seq;
        long epoch;
        boolean shutDown;
        synchronized (lock) {
            if (state != State.RUNNING) {
                return;
            }
            seq = ++requestSeq;
            epoch = brokerEpoch;
            shutDown = wantShutDown;
            heartbeatInFlight = true;
            heartbeatAgain = false;
        }
        long offset = metadataOffset.getAsLong();
        CompletionStage<HeartbeatResponse> stage;
        try {
            stage = channel.heartbeat(new HeartbeatRequest(brokerId, epoch, offset, shutDown, offlineReplicas.get()));
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((response, error) -> runOnExecutor(() -> onHeartbeat(seq, epoch, response, error)));
    }

    private void onHeartbeat(long seq, long epoch, HeartbeatResponse response, Throwable error) {
        boolean completeShutdown = false;
        boolean reRegister = false;
        boolean again;
        synchronized (lock) {
            if (seq != requestSeq || state != State.RUNNING) {
                return; // an abandoned heartbeat, or one from before a re-registration
            }
            heartbeatInFlight = false;
            again = heartbeatAgain;
            if (error != null) {
                log.warn("Broker {} heartbeat failed ({}); next one in {} ms", brokerId, error, heartbeatIntervalMs);
                return; // a failed link: the next tick retries, whatever was asked meanwhile
            }
            if (response.error() == Errors.STALE_BROKER_EPOCH) {
                log.warn("Broker {} epoch {} is stale at the controller; registering again", brokerId, epoch);
                cancelTimer();
                fenced = true;
                state = State.REGISTERING;
                reRegister = true;
            } else if (response.error() != Errors.NONE) {
                log.warn("Broker {} heartbeat answered {}; next one in {} ms", brokerId, response.error(),
                        heartbeatIntervalMs);
                return;
            } else {
                if (fenced != response.fenced()) {
                    log.info("Broker {} is now {}", brokerId, response.fenced() ? "fenced" : "unfenced");
                }
                fenced = response.fenced();
                if (wantShutDown && response.shouldShutDown()) {
                    cancelTimer();
                    state = State.SHUT_DOWN;
                    completeShutdown = true;
                }
            }
        }
        if (reRegister) {
            register(epoch);
        }
        if (completeShutdown) {
            log.info("Broker {} controlled shutdown complete: the controller moved leadership away", brokerId);
            controlledShutdown.complete(null);
        }
        if (again && !reRegister && !completeShutdown) {
            sendHeartbeat(); // reportOfflineReplicas came while this one was out
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void runOnExecutor(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("Broker {} lifecycle task dropped: its executor is stopped", brokerId);
        }
    }

    /**
     * Stops heartbeats and retries; answers arriving later are ignored. A controlled shutdown still
     * waiting fails with {@link IllegalStateException}. Idempotent.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            requestSeq++;
            cancelTimer();
            fenced = true;
        }
        controlledShutdown.completeExceptionally(
                new IllegalStateException("Broker " + brokerId + " lifecycle closed before controlled shutdown completed"));
        initialRegistration.completeExceptionally(
                new IllegalStateException("Broker " + brokerId + " lifecycle closed before registration completed"));
    }
}
