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

import dev.insync.replication.netty.protocol.ErrorCodes;

/**
 * A request the server refused as a whole: the response header carried a non-zero error code
 * (UNSUPPORTED_VERSION, CLUSTER_AUTHORIZATION_FAILED, UNKNOWN_SERVER_ERROR, ...). The connection is fine.
 */
public final class RequestFailedException extends RuntimeException {

    private final short errorCode;

    public RequestFailedException(String apiName, String destination, short errorCode) {
        super(apiName + " to " + destination + " failed: " + ErrorCodes.name(errorCode));
        this.errorCode = errorCode;
    }

    /** The header's error code. */
    public short errorCode() {
        return errorCode;
    }
}
