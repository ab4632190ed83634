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

package dev.insync.replication.testkit.network;

import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.testkit.sim.EventLoop;
import dev.insync.replication.testkit.sim.NodeId;
import dev.insync.replication.testkit.sim.NodeRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.Collections;
import java.util.LinkedHashSet;

/**
 * Connects the nodes of an in-process cluster. A send becomes a delivery task on the receiver's
 * {@code network} executor ({@code network-fetch} for fetches) after a link delay; the receiver's
 * handler runs there, and its response travels back the same way and completes the sender's future
 * on the sender's {@code network} executor (or on the executor the sender named, e.g. its replica
 * fetcher's). Because both ends are node-tagged tasks of the {@link NodeRuntime}, a paused receiver
 * queues its messages (they are delivered when it resumes), a killed receiver loses what was in
 * flight, and a killed sender never sees the answer.
 *
 * <p>Per directed link: a delay range and a drop probability ({@link LinkConfig}, random draws from
 * the runtime's seeded source), FIFO delivery (a message never overtakes an earlier one on the same
 * link), and cuts ({@link #partition}, {@link #partitionOneWay}, {@link #isolate}, {@link #heal}). A
 * lost message leaves the sender's future incomplete ({@link LossMode#NEVER_COMPLETE}, as a hung
 * TCP connection; timeouts are the caller's) or fails it with a {@link NetworkException}
 * ({@link LossMode#FAIL}). A cut also loses messages already in flight on that link.
 *
 * <p>Generic: {@link #send(NodeId, NodeId, ServiceKey, Object)} with handlers bound per node and
 * {@link ServiceKey}; {@link #transportFor(int)} and {@link #controllerEndpointFor(int)} are the
 * {@link ReplicaTransport} and {@code ControllerApi} adapters over it. Handlers are bound per
 * incarnation: a restarted node binds again.
 *
 * <p>Thread-safety: the network also serves a real-time runtime, where every node's threads send at
 * once. A message takes only its own link's monitor (FIFO and the link's delivery clock); cuts and
 * isolations are immutable sets swapped under the network's monitor and read without it, counters
 * are atomic. One shared monitor per message made every thread of the cluster queue behind whichever
 * sender the scheduler had just descheduled. On the simulator there is only one thread anyway, and
 * the order of random draws is unchanged.
 */
public final class InMemoryNetwork {

    /**
     * What happens to the sender's future when its message or the response is lost to a cut, a
     * drop, a receiver that is down or has no handler. (A message in flight to a receiver that is
     * killed meanwhile vanishes with that incarnation's tasks and never completes in either mode.)
     */
    public enum LossMode {
        /** The future never completes (the default; the caller's timeout handles it). */
        NEVER_COMPLETE,
        /** The future fails with a {@link NetworkException} after the link delay. */
        FAIL
    }

    /** Name of the executor of every node on which messages are delivered (fetch requests excepted). */
    public static final String NETWORK_EXECUTOR = "network";
    /** Name of the executor of every node on which {@link #FETCH} requests are delivered and served. */
    public static final String FETCH_EXECUTOR = "network-fetch";

    private static final Logger log = LoggerFactory.getLogger(InMemoryNetwork.class);

    private final NodeRuntime runtime;
    private volatile LinkConfig defaultLink = LinkConfig.DEFAULT;
    private volatile LossMode lossMode = LossMode.NEVER_COMPLETE;
    private final Map<Link, LinkState> links = new ConcurrentHashMap<>();
    /** Immutable; replaced under this network's monitor. */
    private volatile Set<Link> cut = Set.of();
    /** Immutable; replaced under this network's monitor. */
    private volatile Set<NodeId> isolated = Set.of();
    private final Map<Binding, Bound<?, ?>> handlers = new ConcurrentHashMap<>();
    private final Map<NodeId, Endpoint> endpoints = new ConcurrentHashMap<>();
    private final Map<NodeId, Endpoint> fetchEndpoints = new ConcurrentHashMap<>();
    /**
     * Real time only: a message due now goes straight onto the receiver's executor instead of
     * through the shared timer thread (one thread hand-off less per message, and no single timer
     * thread every message of the cluster funnels through). The simulator keeps the timer path so
     * that seeded runs replay exactly as before.
     */
    private final boolean immediateDelivery;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();

    /** A network over {@code runtime} (an {@code EventLoop} for simulation). */
    public InMemoryNetwork(NodeRuntime runtime) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.immediateDelivery = !(runtime instanceof EventLoop);
    }

    /** The runtime the network delivers on. */
    public NodeRuntime runtime() {
        return runtime;
    }

    // ---------------------------------------------------------------- handlers and sending

    /**
     * Binds {@code handler} for {@code key} on the current incarnation of {@code node}, replacing an
     * earlier binding. The handler runs on the node's {@value #NETWORK_EXECUTOR} executor ({@link #FETCH}
     * on its {@value #FETCH_EXECUTOR} executor); its stage may complete later (e.g. a parked fetch),
     * from any task of the node.
     */
    public <Q, R> void bind(NodeId node, ServiceKey<Q, R> key,
                                         Function<? super Q, ? extends CompletionStage<R>> handler) {
        Objects.requireNonNull(handler, "handler");
        handlers.put(new Binding(node, key.name()), new Bound<>(runtime.incarnation(node), handler));
    }

    /**
     * Sends {@code request} from {@code from} to the handler bound for {@code key} on {@code to}.
     * A receiver with no handler for {@code key} (never bound, or bound by a killed incarnation)
     * loses the message.
     */
    public <Q, R> CompletableFuture<R> send(NodeId from, NodeId to, ServiceKey<Q, R> key, Q request) {
        Objects.requireNonNull(request, "request");
        CompletableFuture<R> result = new CompletableFuture<>();
        send(from, to, key.name(), request, q -> invokeBound(to, key, q), endpoint(from), completing(result));
        return result;
    }

    /**
     * The generic primitive: delivers {@code request} to {@code to}, runs {@code handler} there, and
     * carries its response back to {@code from}. {@code label} names the message in logs and traces.
     */
    public <Q, R> CompletableFuture<R> send(NodeId from, NodeId to, String label, Q request,
                                                         Function<? super Q, ? extends CompletionStage<R>> handler) {
        Objects.requireNonNull(handler, "handler");
        CompletableFuture<R> result = new CompletableFuture<>();
        send(from, to, label, request, handler, endpoint(from), completing(result));
        return result;
    }

    private static <R> BiConsumer<R, Throwable> completing(CompletableFuture<R> result) {
        return (response, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(response);
            }
        };
    }

    /**
     * As {@link #send(NodeId, NodeId, ServiceKey, Object)}, but the answer (or, with
     * {@link LossMode#FAIL}, the loss) is delivered straight onto {@code replyExecutor}, which must be
     * one of {@code from}'s own executors (so pausing or killing {@code from} holds or drops it as any
     * of its tasks), and {@code onReply} runs there. Saves the stop on {@code from}'s
     * {@value #NETWORK_EXECUTOR} executor and the hand-off from it, e.g. for a replica fetcher.
     */
    public <Q, R> void send(NodeId from, NodeId to, ServiceKey<Q, R> key, Q request, Executor replyExecutor,
                            BiConsumer<? super R, ? super Throwable> onReply) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(replyExecutor, "replyExecutor");
        Objects.requireNonNull(onReply, "onReply");
        Endpoint sender = endpoint(from);
        send(from, to, key.name(), request, q -> invokeBound(to, key, q),
                new Endpoint(sender.incarnation(), sender.scheduler(), replyExecutor), onReply);
    }

    private <Q, R> void send(NodeId from, NodeId to, String label, Q request,
                             Function<? super Q, ? extends CompletionStage<R>> handler, Endpoint replyTo,
                             BiConsumer<? super R, ? super Throwable> onReply) {
        sent.incrementAndGet();
        deliver(from, to, label, () -> {
            CompletionStage<R> stage;
            try {
                stage = handler.apply(request);
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete((response, error) -> respond(to, from, replyTo, label, onReply, response, error));
        }, reason -> lose(replyTo, label, from, to, reason, onReply));
    }

    private <R> void respond(NodeId from, NodeId to, Endpoint requester, String label,
                             BiConsumer<? super R, ? super Throwable> onReply, R response, Throwable error) {
        deliverTo(from, to, requester, label + "-response", () -> onReply.accept(response, error),
                reason -> lose(requester, label + "-response", from, to, reason, onReply));
    }

    private <Q, R> CompletionStage<R> invokeBound(NodeId node, ServiceKey<Q, R> key, Q request) {
        Bound<?, ?> bound = handlers.get(new Binding(node, key.name()));
        if (bound == null || bound.incarnation != runtime.incarnation(node)) {
            // Nobody listens: the message is gone, as for a connection to a port nobody serves.
            lost.incrementAndGet();
            if (lossMode == LossMode.FAIL) {
                return CompletableFuture.failedFuture(new NetworkException("No " + key.name() + " handler on " + node));
            }
            return new CompletableFuture<>();
        }
        @SuppressWarnings("unchecked")
        Function<Q, CompletionStage<R>> handler = (Function<Q, CompletionStage<R>>) bound.handler;
        return handler.apply(request);
    }

    private void deliver(NodeId from, NodeId to, String label, Runnable task, Consumer<String> onLost) {
        if (runtime.state(to) == NodeRuntime.NodeState.DOWN) {
            onLost.accept(to + " is down");
            return;
        }
        deliverTo(from, to, FETCH.name().equals(label) ? fetchEndpoint(to) : endpoint(to), label, task, onLost);
    }

    private void deliverTo(NodeId from, NodeId to, Endpoint receiver, String label, Runnable task,
                           Consumer<String> onLost) {
        Link link = new Link(from, to);
        if (isCut(link)) {
            onLost.accept("link " + from + " -> " + to + " is partitioned");
            return;
        }
        LinkState state = links.computeIfAbsent(link, l -> new LinkState());
        Runnable delivery = () -> {
            if (isCut(link)) {
                onLost.accept("link " + from + " -> " + to + " was partitioned in flight");
                return;
            }
            delivered.incrementAndGet();
            task.run();
        };
        synchronized (state) {
            LinkConfig config = state.configOr(defaultLink);
            if (config.dropProbability() > 0 && runtime.random().nextDouble() < config.dropProbability()) {
                onLost.accept("dropped on link " + from + " -> " + to);
                return;
            }
            long delayMs = config.maxDelayMs() == config.minDelayMs()
                    ? config.minDelayMs()
                    : runtime.random().nextLong(config.minDelayMs(), config.maxDelayMs() + 1);
            long now = runtime.time().milliseconds();
            // TCP ordering: never before an earlier message on the same link.
            long deliveryMs = Math.max(now + delayMs, state.lastDeliveryMs);
            state.lastDeliveryMs = deliveryMs;
            if (!immediateDelivery) {
                receiver.scheduler.schedule(receiver.executor, delivery, deliveryMs - now);
            } else if (deliveryMs <= now && state.timerPending == 0) {
                // FIFO holds: nothing of this link waits in the timer, and this runs under the link's monitor.
                receiver.executor.execute(delivery);
            } else {
                state.timerPending++;
                receiver.scheduler.schedule(receiver.executor, () -> {
                    synchronized (state) {
                        // Counted down only once on the executor, behind itself: later direct sends queue after it.
                        state.timerPending--;
                    }
                    delivery.run();
                }, deliveryMs - now);
            }
        }
    }

    private <R> void lose(Endpoint sender, String label, NodeId from, NodeId to, String reason,
                          BiConsumer<? super R, ? super Throwable> onReply) {
        lost.incrementAndGet();
        log.debug("Lost {} from {} to {}: {}", label, from, to, reason);
        if (lossMode == LossMode.FAIL) {
            LinkState state = links.get(new Link(from, to));
            long delayMs = (state == null ? defaultLink : state.configOr(defaultLink)).minDelayMs();
            sender.scheduler.schedule(sender.executor, () -> onReply.accept(null,
                    new NetworkException("Lost " + label + " from " + from + " to " + to + ": " + reason)), delayMs);
        }
    }

    private boolean isCut(Link link) {
        Set<NodeId> isolatedNow = isolated;
        return cut.contains(link) || isolatedNow.contains(link.from) || isolatedNow.contains(link.to);
    }

    /** The scheduler view and network executor of a node's current incarnation, cached per incarnation. */
    private Endpoint endpoint(NodeId node) {
        long incarnation = runtime.incarnation(node);
        Endpoint endpoint = endpoints.get(node);
        if (endpoint != null && endpoint.incarnation == incarnation) {
            return endpoint;
        }
        // compute: one executor per incarnation even when two threads miss at once.
        return endpoints.compute(node, (n, current) -> {
            if (current != null && current.incarnation == incarnation) {
                return current;
            }
            Scheduler scheduler = runtime.forNode(n);
            return new Endpoint(incarnation, scheduler, scheduler.newSerialExecutor(NETWORK_EXECUTOR));
        });
    }

    /**
     * The executor fetch requests are served on ({@value #FETCH_EXECUTOR}), cached per incarnation:
     * fetches and produces to one broker run on two request threads, as a Kafka broker's
     * {@code num.io.threads} serve them, rather than queueing behind each other on one. Each link's
     * fetches still run one at a time in the order sent.
     */
    private Endpoint fetchEndpoint(NodeId node) {
        long incarnation = runtime.incarnation(node);
        Endpoint endpoint = fetchEndpoints.get(node);
        if (endpoint != null && endpoint.incarnation == incarnation) {
            return endpoint;
        }
        return fetchEndpoints.compute(node, (n, current) -> {
            if (current != null && current.incarnation == incarnation) {
                return current;
            }
            Endpoint network = endpoint(n);
            return new Endpoint(incarnation, network.scheduler(), network.scheduler().newSerialExecutor(FETCH_EXECUTOR));
        });
    }

    // ---------------------------------------------------------------- faults

    /** Sets the behaviour of links without their own configuration. */
    public void setDefaultLink(LinkConfig config) {
        defaultLink = Objects.requireNonNull(config, "config");
    }

    /** Sets the behaviour of the directed link {@code from -> to}. */
    public void setLink(NodeId from, NodeId to, LinkConfig config) {
        Objects.requireNonNull(config, "config");
        links.computeIfAbsent(new Link(from, to), l -> new LinkState()).config = config;
    }

    /** Drops every per-link configuration: the default link applies everywhere again. */
    public void clearLinkConfigs() {
        for (LinkState state : links.values()) {
            state.config = null;
        }
    }

    /** Sets the behaviour of both directions between {@code a} and {@code b}. */
    public void setLinks(NodeId a, NodeId b, LinkConfig config) {
        setLink(a, b, config);
        setLink(b, a, config);
    }

    /** What happens to a sender's future when a message is lost. */
    public void setLossMode(LossMode mode) {
        lossMode = Objects.requireNonNull(mode, "mode");
    }

    /** Cuts {@code from -> to} only: messages that way are lost, the other way still flows. */
    public synchronized void partitionOneWay(NodeId from, NodeId to) {
        cut = with(cut, new Link(from, to));
    }

    /** Cuts both directions between {@code a} and {@code b}. */
    public synchronized void partition(NodeId a, NodeId b) {
        cut = with(with(cut, new Link(a, b)), new Link(b, a));
    }

    /** Cuts every link of {@code node}, both ways. */
    public synchronized void isolate(NodeId node) {
        isolated = with(isolated, node);
    }

    /** Heals both directions between {@code a} and {@code b}. */
    public synchronized void heal(NodeId a, NodeId b) {
        cut = without(without(cut, new Link(a, b)), new Link(b, a));
    }

    /** Ends the isolation of {@code node}. */
    public synchronized void rejoin(NodeId node) {
        isolated = without(isolated, node);
    }

    /** Heals every cut and isolation (link delays and drop rates stay). */
    public synchronized void healAll() {
        cut = Set.of();
        isolated = Set.of();
    }

    /** Whether messages {@code from -> to} are currently lost to a cut. */
    public boolean isPartitioned(NodeId from, NodeId to) {
        return isCut(new Link(from, to));
    }

    /** Messages (requests and responses) sent so far. Requests only count once. */
    public long messagesSent() {
        return sent.get();
    }

    /** Messages delivered so far (requests and responses). */
    public long messagesDelivered() {
        return delivered.get();
    }

    /** Messages lost so far (cuts, drops, receivers down or without handler). */
    public long messagesLost() {
        return lost.get();
    }

    // ---------------------------------------------------------------- adapters

    /** Fetch between brokers. */
    public static final ServiceKey<FetchRequest, FetchResponse> FETCH =
            ServiceKey.of("fetch", FetchRequest.class, FetchResponse.class);

    /**
     * Binds broker {@code brokerId}'s fetch handler (its {@code ReplicaManager::fetch}) for its
     * current incarnation.
     */
    public void bindFetchHandler(int brokerId, Function<FetchRequest, CompletionStage<FetchResponse>> handler) {
        bind(NodeId.broker(brokerId), FETCH, handler);
    }

    /** The {@link ReplicaTransport} of broker {@code brokerId}: fetches travel over this network. */
    public ReplicaTransport transportFor(int brokerId) {
        NodeId self = NodeId.broker(brokerId);
        return new ReplicaTransport() {
            @Override
            public CompletionStage<FetchResponse> fetch(int leaderId, FetchRequest request) {
                return send(self, NodeId.broker(leaderId), FETCH, request);
            }

            @Override
            public void fetch(int leaderId, int fetcherId, FetchRequest request, Executor executor,
                              BiConsumer<FetchResponse, Throwable> onAnswer) {
                // One link per pair of brokers: the fetcher id does not pick a connection here.
                // The answer goes straight onto the fetcher's executor (one of this broker's).
                send(self, NodeId.broker(leaderId), FETCH, request, executor, onAnswer);
            }
        };
    }

    /**
     * The controller as broker {@code brokerId} reaches it: every {@code ControllerApi} call travels
     * to {@link NodeId#CONTROLLER} over this network (see {@link ControllerRpc}). Brokers wrap it in
     * a {@code QuorumControllerChannel}, as they would an RPC client.
     */
    public ControllerApi controllerEndpointFor(int brokerId) {
        return ControllerRpc.endpoint(this, NodeId.broker(brokerId), NodeId.CONTROLLER);
    }

    /**
     * The {@link ControllerChannel} of broker {@code brokerId} straight over
     * {@link #controllerEndpointFor}: calls travel to {@link NodeId#CONTROLLER}, without a quorum
     * channel's retries (for tests that drive one controller node by hand).
     */
    public ControllerChannel controllerChannelFor(int brokerId) {
        return ControllerRpc.channel(controllerEndpointFor(brokerId));
    }

    private static <T> Set<T> with(Set<T> set, T element) {
        Set<T> copy = new LinkedHashSet<>(set);
        copy.add(element);
        return Collections.unmodifiableSet(copy); // INV-6: not Set.copyOf, whose order is randomized per JVM
    }

    private static <T> Set<T> without(Set<T> set, T element) {
        Set<T> copy = new LinkedHashSet<>(set);
        copy.remove(element);
        return Collections.unmodifiableSet(copy); // INV-6: not Set.copyOf, whose order is randomized per JVM
    }

    private record Link(NodeId from, NodeId to) {
    }

    /**
     * One directed link: its own configuration (null: the network's default), and, guarded by this
     * object's monitor, the delivery time of its last message (FIFO) and, in real time, how many of
     * its messages still wait in the timer (a due message may not overtake them).
     */
    private static final class LinkState {
        volatile LinkConfig config;
        long lastDeliveryMs = Long.MIN_VALUE;
        int timerPending;

        LinkConfig configOr(LinkConfig defaultConfig) {
            LinkConfig own = config;
            return own != null ? own : defaultConfig;
        }
    }

    private record Binding(NodeId node, String service) {
    }

    private record Bound<Q, R>(long incarnation, Function<? super Q, ? extends CompletionStage<R>> handler) {
    }

    private record Endpoint(long incarnation, Scheduler scheduler, Executor executor) {
    }
}
