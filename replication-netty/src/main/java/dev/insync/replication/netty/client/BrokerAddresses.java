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

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;

/**
 * Where each broker listens. Asked on every connection attempt, so a broker that comes back on
 * another address is reached there (the broker assembly answers from metadata).
 */
@FunctionalInterface
public interface BrokerAddresses {

    Optional<InetSocketAddress> address(int brokerId);

    /** A fixed table. */
    static BrokerAddresses of(Map<Integer, InetSocketAddress> table) {
        Map<Integer, InetSocketAddress> copy = Map.copyOf(table);
        return id -> Optional.ofNullable(copy.get(id));
    }
}
