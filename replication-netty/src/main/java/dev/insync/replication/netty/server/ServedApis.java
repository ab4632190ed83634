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

import dev.insync.replication.netty.protocol.Api;
import dev.insync.replication.netty.protocol.ApiRegistry;
import dev.insync.replication.netty.protocol.ApiVersionsResponse;
import dev.insync.replication.netty.protocol.Apis;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The apis a server serves, each with its handler. ApiVersions is always served and answers with
 * this set. Immutable once built.
 */
public final class ServedApis {

    /**
     * An api and its handler.
     *
     * @param nonBlocking the handler never blocks its thread (it returns a stage for anything that
     *                    waits), so it may run on the event loop that read the request
     *                    ({@code insync.network.inline.handlers})
     */
    public record Served<Q, R>(Api<Q, R> api, RequestHandler<Q, R> handler, boolean nonBlocking) {
        public Served {
            Objects.requireNonNull(api, "api");
            Objects.requireNonNull(handler, "handler of " + api);
        }
    }

    private final Map<Short, Served<?, ?>> byKey;
    private final ApiRegistry registry;

    private ServedApis(Map<Short, Served<?, ?>> byKey) {
        this.byKey = Collections.unmodifiableMap(byKey);
        this.registry = ApiRegistry.of(byKey.values().stream().map(Served::api).toArray(Api<?, ?>[]::new));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The served api with this key. */
    public Optional<Served<?, ?>> served(short key) {
        return Optional.ofNullable(byKey.get(key));
    }

    /** The served apis as a registry. */
    public ApiRegistry registry() {
        return registry;
    }

    /** Collects handlers. */
    public static final class Builder {
        private final Map<Short, Served<?, ?>> byKey = new TreeMap<>();

        /** Serves {@code api} with {@code handler}, always on a request-handler thread. @throws IllegalArgumentException if its key is served already */
        public <Q, R> Builder add(Api<Q, R> api, RequestHandler<Q, R> handler) {
            return put(new Served<>(api, handler, false));
        }

        /**
         * Serves {@code api} with a {@code handler} that never blocks its thread: it may run on the
         * event loop that read the request. @throws IllegalArgumentException if its key is served already
         */
        public <Q, R> Builder addNonBlocking(Api<Q, R> api, RequestHandler<Q, R> handler) {
            return put(new Served<>(api, handler, true));
        }

        private Builder put(Served<?, ?> served) {
            Served<?, ?> previous = byKey.putIfAbsent(served.api().key(), served);
            if (previous != null) {
                throw new IllegalArgumentException("Api key " + served.api().key() + " is already served by " + previous.api());
            }
            return this;
        }

        public ServedApis build() {
            Map<Short, Served<?, ?>> m = new TreeMap<>(byKey);
            ServedApis[] self = new ServedApis[1];
            m.putIfAbsent(Apis.API_VERSIONS_KEY, new Served<>(Apis.API_VERSIONS,
                    (ctx, req) -> CompletableFuture.completedFuture(ApiVersionsResponse.of(self[0].registry())), true));
            self[0] = new ServedApis(m);
            return self[0];
        }
    }
}
