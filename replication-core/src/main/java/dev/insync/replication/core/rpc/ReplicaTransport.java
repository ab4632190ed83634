package dev.insync.replication.core.rpc;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;

/**
 * How a follower's fetcher reaches a leader broker. Asynchronous: the stage completes with the
 * response, or exceptionally on a transport failure; it may never complete if the link is cut, so
 * callers keep their own timeouts (as over TCP).
 */
public interface ReplicaTransport {

    /** Sends {@code request} to broker {@code leaderId}. */
    CompletionStage<FetchResponse> fetch(int leaderId, FetchRequest request);

    /**
     * Sends {@code request} to broker {@code leaderId} and runs {@code onAnswer} with the response
     * (or the failure) as a task of {@code executor}, the fetcher's own (a shut-down executor drops it). By default the answer is
     * handed to {@code executor} from wherever {@link #fetch(int, FetchRequest)}'s stage completes
     * (a network thread); a transport that delivers answers onto executors itself (the in-memory
     * network) overrides this to deliver straight onto {@code executor}, one thread hand-off fewer
     * per fetch. A failure to send at all is answered the same way, never thrown.
     */
    default void fetch(int leaderId, FetchRequest request, Executor executor,
                       BiConsumer<FetchResponse, Throwable> onAnswer) {
        CompletionStage<FetchResponse> stage;
        try {
            stage = fetch(leaderId, request);
        } catch (RuntimeException e) {
            handOver(executor, () -> onAnswer.accept(null, e));
            return;
        }
        stage.whenComplete((response, error) -> handOver(executor, () -> onAnswer.accept(response, error)));
    }

    /** Runs {@code task} on {@code executor}; an executor that is shutting down drops it. */
    private static void handOver(Executor executor, Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException shuttingDown) {
            // The fetcher is stopping: nobody waits for this answer any more.
        }
    }
}
