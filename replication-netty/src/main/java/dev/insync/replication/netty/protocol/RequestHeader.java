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
 * What precedes every request body (NET-1): api key int16, api version int16, correlation id int32,
 * client id (nullable string, at most {@link Limits#CLIENT_ID_MAX_BYTES}).
 */
public record RequestHeader(short apiKey, short apiVersion, int correlationId, String clientId) {

    /** Bytes of the header without the client id's characters. */
    public static final int MIN_SIZE = 2 + 2 + 4 + 2;

    public static RequestHeader read(WireReader in) {
        short key = in.int16("request header api key");
        short version = in.int16("request header api version");
        int correlationId = in.int32("request header correlation id");
        String clientId = in.nullableString("request header client id", Limits.CLIENT_ID_MAX_BYTES);
        return new RequestHeader(key, version, correlationId, clientId);
    }

    public void write(WireWriter out) {
        out.int16(apiKey).int16(apiVersion).int32(correlationId)
                .nullableString(clientId, Limits.CLIENT_ID_MAX_BYTES, "client id");
    }
}
