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

import dev.insync.replication.log.Errors;

/**
 * Error codes on the wire. Message bodies carry {@link Errors} codes (Kafka's numbers); the response
 * header carries a request-level code, which may also be one of the protocol's own codes below
 * (Kafka's numbers and meanings, absent from the log module's {@link Errors} because nothing below
 * the network produces them).
 */
public final class ErrorCodes {

    /** Kafka's UNSUPPORTED_VERSION: the api key or its version is not served here (NET-1). */
    public static final short UNSUPPORTED_VERSION = 35;
    /** Kafka's CLUSTER_AUTHORIZATION_FAILED: the peer's principal is not the broker it claims to be (SEC-2). */
    public static final short CLUSTER_AUTHORIZATION_FAILED = 31;

    private ErrorCodes() {
    }

    /**
     * The {@link Errors} value of a code read from a peer; a code this build does not know becomes
     * {@link Errors#UNKNOWN_SERVER_ERROR} (as Kafka's clients do), never an exception.
     */
    public static Errors toErrors(short code) {
        for (Errors e : Errors.values()) {
            if (e.code() == code) {
                return e;
            }
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    /** A readable name for any code: the protocol's own, an {@link Errors} name, or the number. */
    public static String name(short code) {
        if (code == UNSUPPORTED_VERSION) {
            return "UNSUPPORTED_VERSION";
        }
        if (code == CLUSTER_AUTHORIZATION_FAILED) {
            return "CLUSTER_AUTHORIZATION_FAILED";
        }
        for (Errors e : Errors.values()) {
            if (e.code() == code) {
                return e.name();
            }
        }
        return "error code " + code;
    }
}
