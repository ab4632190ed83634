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
