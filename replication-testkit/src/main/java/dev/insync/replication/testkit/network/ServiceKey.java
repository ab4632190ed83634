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

import java.util.Objects;

/**
 * A typed request/response kind on the {@link InMemoryNetwork}: a receiving node binds a handler
 * per key, and a sender names the key. The name also labels the delivery events in the trace.
 *
 * @param name         e.g. {@code "fetch"}; non-blank
 * @param requestType  the request class
 * @param responseType the response class
 * @param <Q>          request type
 * @param <R>          response type
 */
public record ServiceKey<Q, R>(String name, Class<Q> requestType, Class<R> responseType) {

    /** Validates the name. */
    public ServiceKey {
        Objects.requireNonNull(requestType, "requestType");
        Objects.requireNonNull(responseType, "responseType");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("Service key needs a name (request " + requestType.getSimpleName() + ")");
        }
    }

    /** Creates a key. */
    public static <Q, R> ServiceKey<Q, R> of(String name, Class<Q> requestType, Class<R> responseType) {
        return new ServiceKey<>(name, requestType, responseType);
    }
}
