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

/**
 * A message was lost (partitioned link, random drop, receiver down) and the network is set to
 * {@link InMemoryNetwork.LossMode#FAIL}: the sender's future fails with this, like a reset TCP
 * connection. The message names the service, both ends and the reason.
 */
public final class NetworkException extends RuntimeException {

    /** Creates the exception. */
    public NetworkException(String message) {
        super(message);
    }
}
