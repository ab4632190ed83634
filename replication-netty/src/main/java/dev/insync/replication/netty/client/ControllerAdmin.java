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

package dev.insync.replication.netty.client;

import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.NotControllerException;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.netty.config.ClientConfig;
import dev.insync.replication.netty.protocol.ControllerReply;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The client's admin requests to the controller nodes of {@code bootstrap.controllers} (Kafka's
 * {@code --bootstrap-controller}): tried at the node that answered last; a node answering
 * NOT_CONTROLLER, or one that could not be reached before anything was sent, passes the request to
 * the next node; after a round over every node the next round starts after {@code retry.backoff.ms},
 * for {@link #MAX_ROUNDS} rounds. The addresses carry no node ids, so a NOT_CONTROLLER hint (an id) is
 * not followed: the next address is. Anything else (the controller's INVALID_REQUEST, a timeout or a
 * disconnect after sending) ends the call: a create that may have been applied is not sent again.
 */
final class ControllerAdmin implements AutoCloseable {

    /** Rounds over the controller nodes before a call fails with the last error. */
    static final int MAX_ROUNDS = 3;

    private final List<NettyControllerApi> nodes = new ArrayList<>();
    private final Scheduler scheduler;
    private final long retryBackoffMs;
    private volatile int preferred;

    ControllerAdmin(ClientConfig config, NetworkClient network, Scheduler scheduler) {
        this.scheduler = scheduler;
        this.retryBackoffMs = config.retryBackoffMs();
        List<InetSocketAddress> addresses = config.bootstrapControllers();
        for (int i = 0; i < addresses.size(); i++) {
            InetSocketAddress a = addresses.get(i);
            nodes.add(new NettyControllerApi(i, () -> Optional.of(a), network, config.clientId()));
        }
    }

    boolean hasControllers() {
        return !nodes.isEmpty();
    }

    CompletableFuture<List<PartitionRegistration>> createTopic(CreateTopicRequest request) {
        return call(api -> api.createTopic(request));
    }

    CompletableFuture<Void> deleteTopic(String topic) {
        return call(api -> api.deleteTopic(topic));
    }

    CompletableFuture<TopicDescription> describeTopic(String topic) {
        return call(api -> api.describeTopic(topic));
    }

    private <T> CompletableFuture<T> call(Function<NettyControllerApi, CompletionStage<T>> op) {
        CompletableFuture<T> out = new CompletableFuture<>();
        attempt(op, out, preferred, 0, 0);
        return out;
    }

    private <T> void attempt(Function<NettyControllerApi, CompletionStage<T>> op, CompletableFuture<T> out, int node,
                             int triedInRound, int round) {
        NettyControllerApi api = nodes.get(Math.floorMod(node, nodes.size()));
        op.apply(api).whenComplete((value, error) -> {
            if (error == null) {
                preferred = Math.floorMod(node, nodes.size());
                out.complete(value);
                return;
            }
            Throwable t = ProduceRetryPolicy.unwrap(error);
            boolean passOn = t instanceof NotControllerException
                    || (t instanceof DisconnectedException d && !d.maybeSent());
            if (!passOn) {
                out.completeExceptionally(t);
            } else if (triedInRound + 1 < nodes.size()) {
                attempt(op, out, node + 1, triedInRound + 1, round);
            } else if (round + 1 < MAX_ROUNDS) {
                scheduler.schedule(Runnable::run, () -> attempt(op, out, node + 1, 0, round + 1), retryBackoffMs);
            } else {
                out.completeExceptionally(t);
            }
        });
    }

    /** Completes {@code out} from a controller reply that came by way of {@code via}. */
    static <T> void complete(CompletableFuture<T> out, ControllerReply<T> reply, String via) {
        if (reply.error() == Errors.NONE) {
            out.complete(reply.value());
        } else {
            String message = reply.errorMessage() != null ? reply.errorMessage() : reply.error().message();
            out.completeExceptionally(new ApiException(reply.error(), via + ": " + message));
        }
    }

    @Override
    public void close() {
        nodes.forEach(NettyControllerApi::close);
    }
}
