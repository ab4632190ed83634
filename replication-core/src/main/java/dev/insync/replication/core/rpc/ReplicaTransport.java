package dev.insync.replication.core.rpc;

import java.util.concurrent.CompletionStage;

/**
 * How a follower's fetcher reaches a leader broker. Asynchronous: the stage completes with the
 * response, or exceptionally on a transport failure; it may never complete if the link is cut, so
 * callers keep their own timeouts (as over TCP).
 */
public interface ReplicaTransport {

    /** Sends {@code request} to broker {@code leaderId}. */
    CompletionStage<FetchResponse> fetch(int leaderId, FetchRequest request);
}
