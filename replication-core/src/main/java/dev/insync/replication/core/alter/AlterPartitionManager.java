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

package dev.insync.replication.core.alter;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.AlterPartitionResponse.PartitionResult;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * ISR-5: one broker's sender of AlterPartition proposals to the controller.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>At most one outstanding proposal per partition: from {@link #submit} until its future
 *       completes, a second submit for the same partition is refused.</li>
 *   <li>At most one request in flight for the whole broker. Proposals submitted meanwhile are
 *       batched into the next request, in submission order.</li>
 *   <li>A request-level failure (the response's {@code STALE_BROKER_EPOCH} or any other top-level
 *       error, or the {@link ControllerChannel} stage failing) is resent after
 *       {@code retryBackoffMs}, together with anything queued during the backoff. Proposals never
 *       time out: the manager never gives up on one. A request whose answer does not arrive within
 *       {@code requestTimeoutMs} (a lost link: Kafka's channel would time out and disconnect) counts
 *       as a transport failure and is resent; a late answer to an abandoned attempt is ignored.
 *       Each (re)send reads the broker epoch afresh, since it changes after a re-registration.</li>
 * </ul>
 *
 * <h2>Contract of the returned future (what the {@code Partition} relies on)</h2>
 * <ul>
 *   <li>It completes <em>normally</em> with the controller's {@link PartitionResult} for that
 *       partition, whatever its {@link PartitionResult#error()}: {@code NONE} (committed state in
 *       the result), or a per-partition error such as {@code INELIGIBLE_REPLICA},
 *       {@code FENCED_LEADER_EPOCH}, {@code INVALID_UPDATE_VERSION}, {@code NOT_CONTROLLER}. A
 *       response that omits the partition yields {@code PartitionResult.failed(UNKNOWN_SERVER_ERROR)}.
 *       Interpreting it (commit only if same leader epoch and partition epoch not lower; revert;
 *       stay pending; resubmit) is the Partition's job per ISR-5's table.</li>
 *   <li>It completes <em>exceptionally</em> only with an {@link ApiException} carrying
 *       {@link Errors#OPERATION_NOT_ATTEMPTED}: when the partition already has an outstanding
 *       proposal (the duplicate is refused, the earlier proposal is untouched), or when the manager
 *       is closed. ISR-5 says the Partition then goes back to its last committed state.</li>
 *   <li>Futures complete on this manager's executor (the AlterPartition sender), never while a
 *       lock of this class is held; a callback may call {@link #submit} again.</li>
 * </ul>
 *
 * <p>All work runs on the executor and scheduler it is given; this class starts no threads.
 * {@link #submit} may be called from any thread.
 */
public final class AlterPartitionManager implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AlterPartitionManager.class);

    private enum SendState { IDLE, IN_FLIGHT, BACKING_OFF }

    private record Pending(AlterPartitionRequest.Item item, CompletableFuture<PartitionResult> future) {
    }

    /** Kafka's controller request timeout (request.timeout.ms's default). */
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000L;

    private final int brokerId;
    private final LongSupplier brokerEpoch;
    private final ControllerChannel channel;
    private final Executor executor;
    private final Scheduler scheduler;
    private final long retryBackoffMs;
    private final long requestTimeoutMs;

    private final Object lock = new Object();
    /** Every proposal not yet answered, in submission order; includes the in-flight ones. */
    private final LinkedHashMap<TopicPartition, Pending> outstanding = new LinkedHashMap<>();
    private SendState state = SendState.IDLE;
    private Scheduler.Cancellable retryTimer;
    private Scheduler.Cancellable requestTimer;
    /** Numbers send attempts, so an answer to an attempt given up on is recognised. */
    private long attempt;
    private boolean closed;
    private long requestsSent;

    /**
     * @param brokerId       this broker's id, sent in every request
     * @param brokerEpoch    the broker's current epoch, read at every (re)send
     * @param channel        the way to the controller
     * @param executor       the serial executor all sending and completion runs on
     * @param scheduler      for the retry backoff
     * @param retryBackoffMs delay before resending after a request-level failure, at least 0
     *                       (see {@code ReplicationConfig.alterPartitionRetryBackoffMs()})
     */
    public AlterPartitionManager(int brokerId, LongSupplier brokerEpoch, ControllerChannel channel, Executor executor,
                                 Scheduler scheduler, long retryBackoffMs) {
        this(brokerId, brokerEpoch, channel, executor, scheduler, retryBackoffMs, DEFAULT_REQUEST_TIMEOUT_MS);
    }

    /**
     * As above, with the time after which an unanswered request is resent.
     *
     * @param requestTimeoutMs how long to wait for an answer before resending, at least 1
     */
    public AlterPartitionManager(int brokerId, LongSupplier brokerEpoch, ControllerChannel channel, Executor executor,
                                 Scheduler scheduler, long retryBackoffMs, long requestTimeoutMs) {
        if (requestTimeoutMs < 1) {
            throw new IllegalArgumentException("AlterPartition request timeout must be at least 1 ms, got "
                    + requestTimeoutMs + " for broker " + brokerId);
        }
        this.requestTimeoutMs = requestTimeoutMs;
        if (retryBackoffMs < 0) {
            throw new IllegalArgumentException("Negative AlterPartition retry backoff " + retryBackoffMs
                    + " ms for broker " + brokerId);
        }
        this.brokerId = brokerId;
        this.brokerEpoch = Objects.requireNonNull(brokerEpoch, "brokerEpoch");
        this.channel = Objects.requireNonNull(channel, "channel");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.retryBackoffMs = retryBackoffMs;
    }

    /**
     * Queues one partition's proposal for the next request.
     *
     * @return the controller's per-partition result; see the class javadoc for the contract
     */
    public CompletableFuture<PartitionResult> submit(AlterPartitionRequest.Item item) {
        Objects.requireNonNull(item, "item");
        TopicPartition tp = item.topicPartition();
        CompletableFuture<PartitionResult> future = new CompletableFuture<>();
        synchronized (lock) {
            if (closed) {
                future.completeExceptionally(new ApiException(Errors.OPERATION_NOT_ATTEMPTED,
                        "AlterPartition manager of broker " + brokerId + " is closed; proposal for " + tp + " not sent"));
                return future;
            }
            if (outstanding.containsKey(tp)) {
                future.completeExceptionally(new ApiException(Errors.OPERATION_NOT_ATTEMPTED,
                        "Partition " + tp + " already has an outstanding AlterPartition proposal on broker " + brokerId));
                return future;
            }
            outstanding.put(tp, new Pending(item, future));
        }
        try {
            executor.execute(this::maybeSend);
        } catch (RejectedExecutionException e) {
            synchronized (lock) {
                outstanding.remove(tp);
            }
            future.completeExceptionally(new ApiException(Errors.OPERATION_NOT_ATTEMPTED,
                    "AlterPartition sender of broker " + brokerId + " is stopped; proposal for " + tp + " not sent", e));
        }
        return future;
    }

    /** Sends everything outstanding if no request is in flight or backing off. Runs on the executor. */
    private void maybeSend() {
        List<Pending> batch;
        AlterPartitionRequest request;
        long thisAttempt;
        synchronized (lock) {
            if (closed || state != SendState.IDLE || outstanding.isEmpty()) {
                return;
            }
            batch = new ArrayList<>(outstanding.values());
            request = new AlterPartitionRequest(brokerId, brokerEpoch.getAsLong(),
                    batch.stream().map(Pending::item).toList());
            state = SendState.IN_FLIGHT;
            requestsSent++;
            thisAttempt = ++attempt;
            requestTimer = scheduler.schedule(executor, () -> handleResponse(thisAttempt, batch, null,
                    new TimeoutException("no answer within " + requestTimeoutMs + " ms")), requestTimeoutMs);
        }
        log.debug("Broker {} sending AlterPartition for {}", brokerId, request.items().stream()
                .map(AlterPartitionRequest.Item::topicPartition).toList());
        CompletionStage<AlterPartitionResponse> stage;
        try {
            stage = channel.alterPartition(request);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((response, error) -> {
            try {
                executor.execute(() -> handleResponse(thisAttempt, batch, response, error));
            } catch (RejectedExecutionException e) {
                log.debug("Dropping AlterPartition response for broker {}: its sender is stopped", brokerId);
            }
        });
    }

    private void handleResponse(long answeredAttempt, List<Pending> batch, AlterPartitionResponse response,
                                Throwable error) {
        synchronized (lock) {
            if (answeredAttempt != attempt || state != SendState.IN_FLIGHT) {
                log.debug("Ignoring a late AlterPartition answer to broker {}'s attempt {}", brokerId, answeredAttempt);
                return;
            }
            requestTimer.cancel();
        }
        if (error != null || response.error() != Errors.NONE) {
            String why = error != null ? "transport failure: " + error : "error " + response.error();
            synchronized (lock) {
                if (closed) {
                    return;
                }
                // ISR-5: request-level errors are resent after a short backoff; the batch stays outstanding.
                log.info("AlterPartition request from broker {} for {} partitions failed ({}); resending in {} ms",
                        brokerId, batch.size(), why, retryBackoffMs);
                state = SendState.BACKING_OFF;
                retryTimer = scheduler.schedule(executor, this::retry, retryBackoffMs);
            }
            return;
        }
        Map<TopicPartition, PartitionResult> results = response.partitions();
        List<Runnable> completions = new ArrayList<>(batch.size());
        synchronized (lock) {
            for (Pending p : batch) {
                TopicPartition tp = p.item().topicPartition();
                outstanding.remove(tp, p);
                PartitionResult result = results.get(tp);
                if (result == null) {
                    log.warn("AlterPartition response to broker {} has no result for {}", brokerId, tp);
                    result = PartitionResult.failed(Errors.UNKNOWN_SERVER_ERROR);
                }
                PartitionResult r = result;
                completions.add(() -> p.future().complete(r));
            }
            state = SendState.IDLE;
        }
        for (TopicPartition tp : results.keySet()) {
            if (batch.stream().noneMatch(p -> p.item().topicPartition().equals(tp))) {
                log.warn("AlterPartition response to broker {} has a result for {} that was not asked for", brokerId, tp);
            }
        }
        // Outside the lock: a callback may submit again, which must see the slot free.
        completions.forEach(Runnable::run);
        maybeSend();
    }

    private void retry() {
        synchronized (lock) {
            if (closed || state != SendState.BACKING_OFF) {
                return;
            }
            state = SendState.IDLE;
            retryTimer = null;
        }
        maybeSend();
    }

    /** Number of proposals submitted and not yet answered (in flight or queued). */
    public int outstandingCount() {
        synchronized (lock) {
            return outstanding.size();
        }
    }

    /** Whether a request is in flight right now (not counting a backoff wait). */
    public boolean isRequestInFlight() {
        synchronized (lock) {
            return state == SendState.IN_FLIGHT;
        }
    }

    /** Requests handed to the channel so far, resends included. */
    public long requestsSent() {
        synchronized (lock) {
            return requestsSent;
        }
    }

    /**
     * Stops sending: cancels a pending retry and fails every outstanding future with
     * {@code OPERATION_NOT_ATTEMPTED}. A response arriving later is ignored. Idempotent.
     */
    @Override
    public void close() {
        List<Pending> toFail;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            if (retryTimer != null) {
                retryTimer.cancel();
                retryTimer = null;
            }
            if (requestTimer != null) {
                requestTimer.cancel();
                requestTimer = null;
            }
            toFail = new ArrayList<>(outstanding.values());
            outstanding.clear();
        }
        for (Pending p : toFail) {
            p.future().completeExceptionally(new ApiException(Errors.OPERATION_NOT_ATTEMPTED,
                    "AlterPartition manager of broker " + brokerId + " closed before proposal for "
                            + p.item().topicPartition() + " was answered"));
        }
    }
}
