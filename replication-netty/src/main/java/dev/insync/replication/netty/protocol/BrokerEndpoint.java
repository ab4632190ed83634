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

/** Where a broker listens, as Metadata lists it. */
public record BrokerEndpoint(int brokerId, String host, int port) {

    public BrokerEndpoint {
        Objects.requireNonNull(host, "host");
        if (brokerId < 0) {
            throw new IllegalArgumentException("Negative broker id " + brokerId);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("Port " + port + " of broker " + brokerId + " outside 0..65535");
        }
    }
}
