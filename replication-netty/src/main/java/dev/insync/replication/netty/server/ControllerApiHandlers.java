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

package dev.insync.replication.netty.server;

import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.NotControllerException;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.netty.protocol.ControllerApis;
import dev.insync.replication.netty.protocol.ControllerReply;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * A controller node's handlers: every {@link ControllerApis} api served by a {@link ControllerApi}
 * (a {@code QuorumController}). The controller's stage completes the answer whenever it completes
 * (a write once committed, a metadata long poll when something is committed or its wait is over),
 * on the controller's own executor; no event loop or request thread waits for it.
 *
 * <p>A stage failed with an {@link ApiException} is answered with its error and message
 * ({@link NotControllerException}: {@code NOT_CONTROLLER} and the active controller's id, CTL-4);
 * any other failure is the request-level UNKNOWN_SERVER_ERROR. SEC-2: registration, heartbeat and
 * AlterPartition reach the controller only from the principal of the broker id they carry (the
 * server checks the claim before the handler runs).
 */
public final class ControllerApiHandlers {

    private ControllerApiHandlers() {
    }

    /** Adds the controller's apis, served by {@code controller}, to {@code apis}. */
    public static ServedApis.Builder register(ServedApis.Builder apis, ControllerApi controller) {
        Objects.requireNonNull(controller, "controller");
        return apis
                .add(ControllerApis.BROKER_REGISTRATION, (ctx, r) -> reply(() -> controller.registerBroker(r)))
                .add(ControllerApis.BROKER_HEARTBEAT, (ctx, r) -> reply(() -> controller.brokerHeartbeat(r)))
                .add(ControllerApis.ALTER_PARTITION, (ctx, r) -> reply(() -> controller.alterPartition(r)))
                .add(ControllerApis.METADATA_FETCH, (ctx, r) -> reply(() -> controller.fetchMetadata(r)))
                .add(ControllerApis.CREATE_TOPICS, (ctx, r) -> reply(() -> controller.createTopic(r)))
                .add(ControllerApis.DELETE_TOPICS, (ctx, r) -> reply(() -> controller.deleteTopic(r)))
                .add(ControllerApis.INCREMENTAL_ALTER_CONFIGS, (ctx, r) -> reply(() -> controller.alterTopicConfig(r)))
                .add(ControllerApis.DESCRIBE_TOPIC_PARTITIONS, (ctx, r) -> reply(() -> controller.describeTopic(r)))
                .add(ControllerApis.FENCE_BROKER, (ctx, r) -> reply(() -> controller.fenceBroker(r)));
    }

    /**
     * The controller's outcome as a reply; a failure that is not an ApiException stays a failure. An
     * ApiException thrown instead of returned (input refused before any stage exists) is a reply too.
     */
    static <T> CompletionStage<ControllerReply<T>> reply(Supplier<CompletionStage<T>> call) {
        CompletionStage<T> stage;
        try {
            stage = call.get();
        } catch (ApiException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<ControllerReply<T>> out = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
            if (error == null) {
                out.complete(ControllerReply.ok(value));
                return;
            }
            Throwable cause = unwrap(error);
            if (cause instanceof NotControllerException n) {
                out.complete(ControllerReply.failed(n.error(), n.getMessage(),
                        n.activeController().orElse(ControllerReply.NO_CONTROLLER)));
            } else if (cause instanceof ApiException api) {
                out.complete(ControllerReply.failed(api.error(), api.getMessage(), ControllerReply.NO_CONTROLLER));
            } else {
                out.completeExceptionally(cause);
            }
        });
        return out;
    }

    private static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
