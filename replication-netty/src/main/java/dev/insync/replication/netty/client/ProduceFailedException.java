package dev.insync.replication.netty.client;

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.Objects;

/**
 * A record the client could not get acknowledged: the error, and what is known of whether it was
 * written ({@link Written}). Retrying a {@link Written#NO} record cannot duplicate it; retrying the
 * others may (see docs/client.md, "Retries").
 */
public final class ProduceFailedException extends RuntimeException {

    /** What the client knows of the record's fate. */
    public enum Written {
        /** It is in no log: the broker refused it before the append, or it was never sent. */
        NO,
        /** It was appended by the leader but not acknowledged (acks=all timed out, NOT_ENOUGH_REPLICAS_AFTER_APPEND, lost leadership): it may stay or be truncated. */
        APPENDED,
        /** Unknown: sent, and no answer came (timeout, disconnect), or the broker failed during the append. */
        UNKNOWN
    }

    private final TopicPartition topicPartition;
    private final Errors error;
    private final Written written;

    public ProduceFailedException(TopicPartition topicPartition, Errors error, Written written, String detail) {
        super(topicPartition + ": " + error + " (written: " + written + ")" + (detail == null ? "" : ": " + detail));
        this.topicPartition = Objects.requireNonNull(topicPartition, "topicPartition");
        this.error = Objects.requireNonNull(error, "error");
        this.written = Objects.requireNonNull(written, "written");
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /** The broker's error, or NETWORK_EXCEPTION / REQUEST_TIMED_OUT for a transport failure. */
    public Errors error() {
        return error;
    }

    public Written written() {
        return written;
    }
}
