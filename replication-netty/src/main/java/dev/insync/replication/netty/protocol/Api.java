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

package dev.insync.replication.netty.protocol;

import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * One request type of the protocol: its api key, the versions served, the request and response
 * codecs, whether a request gets an answer, and which broker id a request claims to come from.
 * Framing, ordering, bounds and authorization are the server's and the client's; an api only
 * describes its bodies, so a new request type (the controller's, for instance) plugs in by adding
 * an {@code Api} to an {@link ApiRegistry} and a handler to the server, nothing else.
 *
 * @param <Q> request
 * @param <R> response
 */
public final class Api<Q, R> {

    /** {@link #claimedBrokerId} of a request that claims no broker identity. */
    public static final int NO_BROKER_CLAIM = -1;

    private final short key;
    private final String name;
    private final short minVersion;
    private final short maxVersion;
    private final MessageCodec<Q> requestCodec;
    private final MessageCodec<R> responseCodec;
    private final Predicate<Q> expectsResponse;
    private final ToIntFunction<Q> claimedBrokerId;

    private Api(Builder<Q, R> b) {
        if (b.key < 0) {
            throw new IllegalArgumentException("Negative api key " + b.key + " for " + b.name);
        }
        if (b.minVersion < 0 || b.maxVersion < b.minVersion) {
            throw new IllegalArgumentException("Bad version range " + b.minVersion + ".." + b.maxVersion + " for "
                    + b.name);
        }
        this.key = b.key;
        this.name = Objects.requireNonNull(b.name, "name");
        this.minVersion = b.minVersion;
        this.maxVersion = b.maxVersion;
        this.requestCodec = Objects.requireNonNull(b.requestCodec, "requestCodec of " + b.name);
        this.responseCodec = Objects.requireNonNull(b.responseCodec, "responseCodec of " + b.name);
        this.expectsResponse = b.expectsResponse;
        this.claimedBrokerId = b.claimedBrokerId;
    }

    /** Starts describing api {@code key} named {@code name}. */
    public static <Q, R> Builder<Q, R> builder(int key, String name, MessageCodec<Q> requestCodec,
                                               MessageCodec<R> responseCodec) {
        return new Builder<>((short) key, name, requestCodec, responseCodec);
    }

    public short key() {
        return key;
    }

    public String name() {
        return name;
    }

    public short minVersion() {
        return minVersion;
    }

    public short maxVersion() {
        return maxVersion;
    }

    /** Whether {@code version} is served. */
    public boolean supports(short version) {
        return version >= minVersion && version <= maxVersion;
    }

    public MessageCodec<Q> requestCodec() {
        return requestCodec;
    }

    public MessageCodec<R> responseCodec() {
        return responseCodec;
    }

    /** False for a request that is answered with nothing (a Produce with acks=0, as in Kafka). */
    public boolean expectsResponse(Q request) {
        return expectsResponse.test(request);
    }

    /**
     * SEC-2: the broker id the request claims to come from (a follower's replicaId; later the sender
     * of AlterPartition, registration, heartbeat), or {@link #NO_BROKER_CLAIM}. The server accepts a
     * claim only from the principal mapped to that id.
     */
    public int claimedBrokerId(Q request) {
        return claimedBrokerId.applyAsInt(request);
    }

    @Override
    public String toString() {
        return name + "(key " + key + ", versions " + minVersion + ".." + maxVersion + ")";
    }

    /** Builds an {@link Api}. */
    public static final class Builder<Q, R> {
        private final short key;
        private final String name;
        private final MessageCodec<Q> requestCodec;
        private final MessageCodec<R> responseCodec;
        private short minVersion;
        private short maxVersion;
        private Predicate<Q> expectsResponse = q -> true;
        private ToIntFunction<Q> claimedBrokerId = q -> NO_BROKER_CLAIM;

        private Builder(short key, String name, MessageCodec<Q> requestCodec, MessageCodec<R> responseCodec) {
            this.key = key;
            this.name = name;
            this.requestCodec = requestCodec;
            this.responseCodec = responseCodec;
        }

        public Builder<Q, R> versions(int min, int max) {
            this.minVersion = (short) min;
            this.maxVersion = (short) max;
            return this;
        }

        public Builder<Q, R> expectsResponse(Predicate<Q> p) {
            this.expectsResponse = Objects.requireNonNull(p);
            return this;
        }

        public Builder<Q, R> claimedBrokerId(ToIntFunction<Q> f) {
            this.claimedBrokerId = Objects.requireNonNull(f);
            return this;
        }

        public Api<Q, R> build() {
            return new Api<>(this);
        }
    }
}
