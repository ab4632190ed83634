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

package dev.insync.replication.core.fetcher;

import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.ReplicaTransport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Records every fetch and leaves its answer to the test. */
final class FakeTransport implements ReplicaTransport {

    record Sent(int leaderId, FetchRequest request, CompletableFuture<FetchResponse> future) {
    }

    final List<Sent> sent = new ArrayList<>();

    @Override
    public CompletionStage<FetchResponse> fetch(int leaderId, FetchRequest request) {
        CompletableFuture<FetchResponse> f = new CompletableFuture<>();
        sent.add(new Sent(leaderId, request, f));
        return f;
    }

    Sent last() {
        if (sent.isEmpty()) {
            throw new AssertionError("no fetch was sent");
        }
        return sent.get(sent.size() - 1);
    }

    List<Sent> pending() {
        return sent.stream().filter(s -> !s.future().isDone()).toList();
    }
}
