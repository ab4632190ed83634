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

package dev.insync.replication.controller.channel;

import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.NotControllerException;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.follower.MetadataChannel;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * CTL-4, broker side: core's {@link ControllerChannel} and {@link MetadataChannel} over a controller
 * quorum, given as one {@link ControllerApi} endpoint per controller node (in-JVM controllers, the
 * simulator's network, or an RPC client). It knows nothing of the transport.
 *
 * <h2>Writes</h2>
 * (registration, heartbeats, AlterPartition) go to the last known active controller (at first the
 * lowest node id). An answer {@code NOT_CONTROLLER} sends the request on at once to the node it names
 * (or, without a hint, to the next node not tried in this round); a transport failure or no answer
 * within {@code requestTimeoutMs} tries the next node. When every node of a round has failed, the
 * channel waits {@code retryBackoffMs}, doubling each round up to {@code retryBackoffMaxMs}; after
 * {@code maxRounds} rounds the request fails with the last controller answer (else the last transport
 * error), which core's managers already
 * handle: the AlterPartition manager resends a failed request after its backoff (ISR-5), the
 * lifecycle manager retries registrations and sends the next heartbeat. Other controller errors
 * ({@code INVALID_REQUEST}, ...) are answered at once; other retriable ones ({@code REQUEST_TIMED_OUT}
 * from a busy controller) are retried at the same node after the backoff.
 *
 * <p>Order: per broker and kind of request (registration, heartbeat, AlterPartition) at most one is
 * being retried; a newer one of the same kind supersedes it (the older fails with
 * {@code OPERATION_NOT_ATTEMPTED}; its sender has given up on it already, as both managers keep one
 * in flight and only send again after an answer or their own timeout). So the channel never sends an
 * older heartbeat or proposal after a newer one it was handed. A superseded request its node left
 * unanswered counts as that node's failure: the newer one starts at the next node (a paused or cut-off
 * controller keeps its connection open, and the lifecycle manager gives up on a heartbeat after one
 * interval, long before {@code requestTimeoutMs}). When a node answers a write, every other write still
 * waiting on another node is sent to it at once.
 *
 * <h2>Metadata fetches</h2>
 * may be answered by any node: they go to the node that answered the last fetch (at first the
 * active controller, if known); a failed fetch is tried once at each other node, then fails
 * ({@code MetadataFollower} retries after its backoff). A fetch sent while the previous one is still
 * unanswered (the follower gave up on it) moves to the next node.
 *
 * <p>All work runs on one serial executor of the given scheduler; results complete there. Public
 * methods may be called from any thread.
 */
public final class QuorumControllerChannel implements ControllerChannel, MetadataChannel, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(QuorumControllerChannel.class);

    /**
     * How the channel retries.
     *
     * @param retryBackoffMs    {@code retry.backoff.ms} (Kafka's 100): wait after a round in which every node failed
     * @param retryBackoffMaxMs {@code retry.backoff.max.ms} (Kafka's 1000): bound of the doubling backoff
     * @param requestTimeoutMs  {@code request.timeout.ms} (Kafka's 30000): an attempt unanswered this long counts
     *                          as a transport failure and the next node is tried
     * @param maxRounds         rounds over the nodes before a write fails with its last error (at least 1)
     */
    public record Settings(long retryBackoffMs, long retryBackoffMaxMs, long requestTimeoutMs, int maxRounds) {

        public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
        public static final String RETRY_BACKOFF_MAX_MS = "retry.backoff.max.ms";
        public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";

        /** 100 ms doubling to 1 s, 30 s per attempt, 3 rounds. */
        public static final Settings DEFAULT = new Settings(100, 1000, 30_000, 3);

        /** Validates. */
        public Settings {
            if (retryBackoffMs < 0 || retryBackoffMaxMs < retryBackoffMs || requestTimeoutMs < 1 || maxRounds < 1) {
                throw new IllegalArgumentException("Invalid controller channel settings: " + RETRY_BACKOFF_MS + "="
                        + retryBackoffMs + ", " + RETRY_BACKOFF_MAX_MS + "=" + retryBackoffMaxMs + ", "
                        + REQUEST_TIMEOUT_MS + "=" + requestTimeoutMs + ", maxRounds=" + maxRounds);
            }
        }
    }

    private enum Kind { REGISTER, HEARTBEAT, ALTER_PARTITION }

    private record Slot(Kind kind, int brokerId) {
    }

    /** One write until it is answered, fails, or is superseded. */
    private final class Call<T> {
        final Slot slot;
        final Function<ControllerApi, CompletionStage<T>> operation;
        final CompletableFuture<T> result = new CompletableFuture<>();
        final Set<Integer> triedThisRound = new HashSet<>();
        int target;
        int rounds;
        long attempt;
        Throwable lastError;
        Scheduler.Cancellable timer;
        /** An attempt at {@link #target} is sent and unanswered (not backing off between rounds). */
        boolean awaitingAnswer;
        boolean done;

        Call(Slot slot, Function<ControllerApi, CompletionStage<T>> operation) {
            this.slot = slot;
            this.operation = operation;
        }
    }

    private final TreeMap<Integer, ControllerApi> endpoints;
    private final List<Integer> ids;
    private final Scheduler scheduler;
    private final Settings settings;
    private final Executor executor;

    // Owned by the executor.
    private final Map<Slot, Call<?>> current = new HashMap<>();
    private OptionalInt active = OptionalInt.empty();
    private volatile OptionalInt activeMirror = OptionalInt.empty();
    private Integer fetchTarget;
    private long fetchSeq;
    private long answeredFetchSeq;
    private volatile boolean closed;

    /**
     * @param endpoints one endpoint per controller node id (at least one)
     * @param scheduler timers and the channel's serial executor
     * @param settings  retry settings
     */
    public QuorumControllerChannel(Map<Integer, ? extends ControllerApi> endpoints, Scheduler scheduler, Settings settings) {
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("A controller channel needs at least one controller endpoint");
        }
        this.endpoints = new TreeMap<>(endpoints);
        this.ids = List.copyOf(this.endpoints.keySet());
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.executor = scheduler.newSerialExecutor("QuorumControllerChannel");
    }

    /** The active controller as last learned (for tests and metrics); empty when unknown. */
    public OptionalInt knownActiveController() {
        return activeMirror;
    }

    // ================================================================================ writes

    @Override
    public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
        return write(new Slot(Kind.ALTER_PARTITION, request.brokerId()), api -> api.alterPartition(request));
    }

    @Override
    public CompletionStage<Long> registerBroker(int brokerId, long previousBrokerEpoch, List<Endpoint> endpoints) {
        RegisterBrokerRequest request = new RegisterBrokerRequest(brokerId, previousBrokerEpoch, endpoints);
        return write(new Slot(Kind.REGISTER, brokerId),
                api -> api.registerBroker(request).thenApply(RegisterBrokerResponse::brokerEpoch));
    }

    @Override
    public CompletionStage<HeartbeatResponse> heartbeat(HeartbeatRequest request) {
        return write(new Slot(Kind.HEARTBEAT, request.brokerId()), api -> api.brokerHeartbeat(request));
    }

    private <T> CompletionStage<T> write(Slot slot, Function<ControllerApi, CompletionStage<T>> operation) {
        Call<T> call = new Call<>(slot, operation);
        if (!run(() -> startCall(call))) {
            call.result.completeExceptionally(closedError());
        }
        return call.result;
    }

    private <T> void startCall(Call<T> call) {
        if (closed) {
            call.result.completeExceptionally(closedError());
            return;
        }
        Call<?> previous = current.put(call.slot, call);
        Integer silent = null;
        if (previous != null && !previous.done) {
            if (previous.awaitingAnswer) {
                silent = previous.target;
            }
            fail(previous, new ApiException(Errors.OPERATION_NOT_ATTEMPTED, "A newer " + call.slot.kind
                    + " request of broker " + call.slot.brokerId + " superseded this one before it was answered"));
        }
        call.target = active.orElse(ids.get(0));
        if (silent != null && call.target == silent) {
            // CTL-3/CTL-4: the request this one replaces got no answer from that node within its sender's own
            // timeout (the lifecycle manager's heartbeat interval). A paused or cut-off controller keeps its
            // connection open and answers nothing, and the sender gives up long before requestTimeoutMs, so
            // only this notices: without it every heartbeat would go to the silent node for as long as it is
            // silent, and the new active controller would fence every broker after broker.session.timeout.ms.
            // So the node counts as failed: the next node is asked (its NOT_CONTROLLER hint, if any, leads on).
            if (active.isPresent() && active.getAsInt() == silent) {
                learnActive(OptionalInt.empty());
            }
            call.target = ids.get((ids.indexOf(silent) + 1) % ids.size());
        }
        attempt(call);
    }

    private <T> void attempt(Call<T> call) {
        long seq = ++call.attempt;
        int target = call.target;
        call.triedThisRound.add(target);
        call.awaitingAnswer = true;
        call.timer = scheduler.schedule(executor, () -> onAnswer(call, seq, null,
                new TimeoutException("Controller node " + target + " did not answer within " + settings.requestTimeoutMs()
                        + " ms")), settings.requestTimeoutMs());
        CompletionStage<T> stage;
        try {
            stage = call.operation.apply(endpoints.get(target));
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((value, error) -> {
            if (!run(() -> onAnswer(call, seq, value, error))) {
                fail(call, closedError());
            }
        });
    }

    private <T> void onAnswer(Call<T> call, long seq, T value, Throwable error) {
        if (call.done || seq != call.attempt) {
            return; // superseded, closed, or an answer to an attempt given up on
        }
        call.timer.cancel();
        call.awaitingAnswer = false;
        int target = call.target;
        if (error == null) {
            learnActive(OptionalInt.of(target));
            call.done = true;
            current.remove(call.slot, call);
            call.result.complete(value);
            redirectTo(target);
            return;
        }
        Throwable cause = unwrap(error);
        // The error a failed call ends with: a controller's answer (NOT_CONTROLLER: no node is active) says
        // more than a refused connection, so a transport error does not replace one.
        if (cause instanceof ApiException || !(call.lastError instanceof ApiException)) {
            call.lastError = cause;
        }
        if (cause instanceof ApiException api && api.error() == Errors.NOT_CONTROLLER) {
            // CTL-4: redirected. The hint, if any, is the node to try next.
            OptionalInt hint = cause instanceof NotControllerException n ? n.activeController() : OptionalInt.empty();
            if (hint.isPresent() && endpoints.containsKey(hint.getAsInt()) && hint.getAsInt() != target) {
                learnActive(hint);
                if (!call.triedThisRound.contains(hint.getAsInt())) {
                    call.target = hint.getAsInt();
                    attempt(call);
                    return;
                }
            } else if (active.isPresent() && active.getAsInt() == target) {
                learnActive(OptionalInt.empty());
            }
            tryNextNode(call);
        } else if (cause instanceof ApiException api && api.error().isRetriable()) {
            // A busy controller (REQUEST_TIMED_OUT): the same node, after the backoff.
            call.triedThisRound.clear();
            backOff(call, target);
        } else if (cause instanceof ApiException) {
            fail(call, cause);
        } else {
            // A transport failure or no answer: maybe that node is gone.
            if (active.isPresent() && active.getAsInt() == target) {
                learnActive(OptionalInt.empty());
            }
            tryNextNode(call);
        }
    }

    /**
     * CTL-4: {@code node} has just answered a write, so it is the active controller; every other write
     * still waiting for an answer from another node (an AlterPartition sent to a controller that was then
     * paused or cut off: it keeps no sender timeout of its own, ISR-5) is sent to {@code node} now instead
     * of after {@code requestTimeoutMs}. Kafka's broker does the same when its controller node provider
     * names a new active controller. A late answer of the attempt given up on is ignored; the request is
     * the same one, so a controller that did apply it answers the copy as a stale proposal.
     */
    private void redirectTo(int node) {
        for (Call<?> other : new ArrayList<>(current.values())) {
            if (!other.done && other.awaitingAnswer && other.target != node) {
                other.timer.cancel();
                other.target = node;
                attempt(other);
            }
        }
    }

    private <T> void tryNextNode(Call<T> call) {
        for (int i = 1; i <= ids.size(); i++) {
            int candidate = ids.get((ids.indexOf(call.target) + i) % ids.size());
            if (!call.triedThisRound.contains(candidate)) {
                call.target = candidate;
                attempt(call);
                return;
            }
        }
        call.triedThisRound.clear();
        backOff(call, active.orElse(ids.get((ids.indexOf(call.target) + 1) % ids.size())));
    }

    private <T> void backOff(Call<T> call, int nextTarget) {
        call.rounds++;
        if (call.rounds >= settings.maxRounds()) {
            log.debug("{} request of broker {} failed after {} rounds: {}", call.slot.kind, call.slot.brokerId, call.rounds,
                    call.lastError.toString());
            fail(call, call.lastError);
            return;
        }
        long backoffMs = Math.min(settings.retryBackoffMaxMs(), settings.retryBackoffMs() << Math.min(20, call.rounds - 1));
        long seq = ++call.attempt;
        call.timer = scheduler.schedule(executor, () -> {
            if (!call.done && call.attempt == seq && !closed) {
                call.target = nextTarget;
                attempt(call);
            }
        }, backoffMs);
    }

    private void fail(Call<?> call, Throwable error) {
        if (call.done) {
            return;
        }
        call.done = true;
        if (call.timer != null) {
            call.timer.cancel();
        }
        current.remove(call.slot, call);
        call.result.completeExceptionally(error);
    }

    private void learnActive(OptionalInt node) {
        if (!node.equals(active)) {
            // As Kafka's broker logs a new KRaft controller: rare, and what a fencing is read against.
            if (node.isPresent()) {
                log.info("Active controller now {} (was {})", node.getAsInt(), active.isPresent() ? active.getAsInt() : "unknown");
            } else {
                log.debug("Active controller now unknown");
            }
            active = node;
            activeMirror = node;
        }
    }

    // ================================================================================ metadata

    @Override
    public CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request) {
        CompletableFuture<MetadataFetchResponse> result = new CompletableFuture<>();
        if (!run(() -> startFetch(request, result))) {
            result.completeExceptionally(closedError());
        }
        return result;
    }

    private void startFetch(MetadataFetchRequest request, CompletableFuture<MetadataFetchResponse> result) {
        if (closed) {
            result.completeExceptionally(closedError());
            return;
        }
        if (fetchTarget != null && answeredFetchSeq < fetchSeq) {
            // The previous fetch is still unanswered and its sender gave up on it: try another node.
            fetchTarget = ids.get((ids.indexOf(fetchTarget) + 1) % ids.size());
        }
        long seq = ++fetchSeq;
        int first = fetchTarget != null ? fetchTarget : active.orElse(ids.get(0));
        List<Integer> order = new ArrayList<>();
        order.add(first);
        for (int i = 1; i < ids.size(); i++) {
            order.add(ids.get((ids.indexOf(first) + i) % ids.size()));
        }
        fetchFrom(request, result, seq, order, 0);
    }

    private void fetchFrom(MetadataFetchRequest request, CompletableFuture<MetadataFetchResponse> result, long seq,
                           List<Integer> order, int position) {
        int target = order.get(position);
        fetchTarget = target;
        CompletionStage<MetadataFetchResponse> stage;
        try {
            stage = endpoints.get(target).fetchMetadata(request);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((response, error) -> {
            if (!run(() -> {
                if (seq == fetchSeq) {
                    answeredFetchSeq = seq;
                }
                if (error == null) {
                    result.complete(response);
                } else if (position + 1 < order.size() && seq == fetchSeq && !closed) {
                    fetchFrom(request, result, seq, order, position + 1);
                } else {
                    if (seq == fetchSeq) {
                        fetchTarget = order.get((position + 1) % order.size());
                    }
                    result.completeExceptionally(unwrap(error));
                }
            })) {
                result.completeExceptionally(closedError());
            }
        });
    }

    // ================================================================================ helpers

    private static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static ApiException closedError() {
        return new ApiException(Errors.OPERATION_NOT_ATTEMPTED, "The controller channel is closed");
    }

    private boolean run(Runnable task) {
        try {
            executor.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Fails every request still being retried; later requests fail at once. Idempotent. */
    @Override
    public void close() {
        closed = true;
        run(() -> {
            for (Call<?> call : new ArrayList<>(current.values())) {
                fail(call, closedError());
            }
        });
    }
}
