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

package dev.insync.replication.broker;

/**
 * The server half of an {@link InsyncBroker}'s network binding: where the broker exposes its request
 * handlers. The broker calls {@link #serve} once, when it can serve (its log directories are open,
 * it is registered, and its initial metadata load is applied, as a KRaft broker enables request
 * processing once it has caught up), and closes the returned handle when it stops. The testkit binds
 * the handlers on its in-memory network; replication-netty registers them with its server.
 */
@FunctionalInterface
public interface RequestServer {

    /** Serves nothing: the embedder calls {@link InsyncBroker#requestHandlers()} from its own server. */
    RequestServer NONE = handlers -> () -> { };

    /**
     * Starts exposing {@code handlers} to clients and other brokers.
     *
     * @return what stops exposing them (called once, when the broker stops)
     * @throws RuntimeException if the handlers cannot be served; the broker then fails to start
     */
    AutoCloseable serve(BrokerRequestHandlers handlers);
}
