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

/**
 * What precedes every response body: correlation id int32 (the request's), then a request-level
 * error code int16. 0 means the api's response body follows; any other code means the request was
 * not served as a whole ({@link ErrorCodes#UNSUPPORTED_VERSION}, {@link ErrorCodes#CLUSTER_AUTHORIZATION_FAILED},
 * UNKNOWN_SERVER_ERROR) and the frame ends there, so an error answer is readable without knowing
 * the api's body layout, even for an api the server has never heard of.
 */
public record ResponseHeader(int correlationId, short errorCode) {

    public static final int SIZE = 4 + 2;

    public static ResponseHeader read(WireReader in) {
        return new ResponseHeader(in.int32("response header correlation id"), in.int16("response header error code"));
    }

    public void write(WireWriter out) {
        out.int32(correlationId).int16(errorCode);
    }
}
