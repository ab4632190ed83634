package dev.insync.replication.netty.client;

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads one partition from a position, following leader changes: each {@link #poll} fetches from
 * the leader the client knows (below its HW only, FET-1); after an error the client learns the
 * leaders again and the next fetch, {@code retry.backoff.ms} later, goes to the new one. The
 * position moves only past records a poll returned, so a record is never skipped; and when it fell
 * below the leader's log start (retention), to that log start ({@code auto.offset.reset=earliest}).
 * Not thread-safe: one thread polls.
 */
public final class PartitionConsumer {

    private final InsyncClient client;
    private final TopicPartition topicPartition;
    private long position;
    private Errors lastError = Errors.NONE;

    PartitionConsumer(InsyncClient client, TopicPartition topicPartition, long position) {
        if (position < 0) {
            throw new IllegalArgumentException("Negative start offset " + position + " for " + topicPartition);
        }
        this.client = client;
        this.topicPartition = topicPartition;
        this.position = position;
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /** The offset the next poll reads from. */
    public long position() {
        return position;
    }

    /** The error of the last fetch, {@link Errors#NONE} if it succeeded. */
    public Errors lastError() {
        return lastError;
    }

    /**
     * Fetches until some records come back or {@code timeoutMs} has passed (each fetch may be held by
     * the leader up to {@code fetch.max.wait.ms}); returns them (empty on timeout).
     */
    public List<ConsumerRecord> poll(long timeoutMs) throws InterruptedException {
        long deadlineNs = nowNs() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - nowNs());
            if (leftMs <= 0) {
                return List.of();
            }
            FetchResult r;
            try {
                r = client.fetch(topicPartition, position).get(leftMs, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                return List.of();
            } catch (ExecutionException e) {
                throw new IllegalStateException("Fetch of " + topicPartition + " at " + position + " failed", e.getCause());
            }
            lastError = r.error();
            if (r.error() == Errors.NONE) {
                if (!r.records().isEmpty()) {
                    position = r.nextOffset();
                    return r.records();
                }
                continue; // nothing below the HW yet: the leader held the fetch fetch.max.wait.ms
            }
            if (r.error() == Errors.OFFSET_OUT_OF_RANGE && r.logStartOffset() > position) {
                position = r.logStartOffset(); // auto.offset.reset=earliest
                continue;
            }
            backOff(Math.min(client.config().retryBackoffMs(),
                    TimeUnit.NANOSECONDS.toMillis(deadlineNs - nowNs())));
        }
    }

    /** The client's clock (the scheduler's), not the wall clock. */
    private long nowNs() {
        return client.scheduler().time().nanoseconds();
    }

    private void backOff(long ms) throws InterruptedException {
        if (ms <= 0) {
            return;
        }
        CompletableFuture<Void> wake = new CompletableFuture<>();
        client.scheduler().schedule(Runnable::run, () -> wake.complete(null), ms);
        try {
            wake.get(ms + 1_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // the timer is gone (client closed): return to the caller's deadline check
        }
    }
}
