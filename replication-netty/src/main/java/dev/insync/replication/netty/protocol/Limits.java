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

/** The protocol's explicit bounds on strings (see docs/protocol.md). Encoders refuse to exceed them too. */
public final class Limits {

    /** Kafka's longest topic name. */
    public static final int TOPIC_NAME_MAX_BYTES = 249;
    /** The request header's client id. */
    public static final int CLIENT_ID_MAX_BYTES = 256;
    /** A broker's host name in Metadata (the DNS limit). */
    public static final int HOST_MAX_BYTES = 255;

    private Limits() {
    }
}
