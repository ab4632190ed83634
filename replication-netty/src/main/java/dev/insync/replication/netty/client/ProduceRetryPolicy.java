package dev.insync.replication.netty.client;

import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.log.Errors;
import dev.insync.replication.netty.client.ProduceFailedException.Written;
import dev.insync.replication.netty.protocol.ErrorCodes;

import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Which failed produces {@code InsyncClient} sends again: only those whose records are known not to
 * be in any log, so a retry never writes a record twice (docs/client.md, "Retries"). Kafka's
 * producer without idempotence also retries after timeouts, disconnects and
 * NOT_ENOUGH_REPLICAS_AFTER_APPEND, and so may duplicate; this client reports those instead.
 *
 * <p>A partition's answer says whether the leader appended: PRO-2's refusals come before the append
 * and carry no offset (base offset -1), while an error after the append (PRO-3: acks=all timed out,
 * NOT_ENOUGH_REPLICAS_AFTER_APPEND, leadership lost while waiting) keeps the offsets the records got.
 */
final class ProduceRetryPolicy {

    /** What to do with a failed batch. */
    record Decision(boolean retry, boolean refreshMetadata, Errors error, Written written) {
    }

    /**
     * Refused before the append, and worth another try: the leader moved or is unknown (refresh
     * metadata first), or PRO-2's ISR check failed (the ISR may grow back).
     */
    static final Set<Errors> RETRIABLE_BEFORE_APPEND = Set.of(Errors.NOT_LEADER_OR_FOLLOWER,
            Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH,
            Errors.NOT_ENOUGH_REPLICAS);

    /** Refused before anything was written, for good: resending the same bytes gets the same answer. */
    static final Set<Errors> FATAL_BEFORE_APPEND = Set.of(Errors.CORRUPT_MESSAGE, Errors.MESSAGE_TOO_LARGE,
            Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_RECORD, Errors.INVALID_REQUIRED_ACKS, Errors.INVALID_REQUEST);

    /** Errors after which the client's idea of the leader is likely stale. */
    private static final Set<Errors> STALE_METADATA = Set.of(Errors.NOT_LEADER_OR_FOLLOWER,
            Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH,
            Errors.KAFKA_STORAGE_ERROR);

    private ProduceRetryPolicy() {
    }

    /** A partition's answer that is not {@link Errors#NONE}. */
    static Decision forAnswer(ProduceResult result) {
        Errors error = result.error();
        if (error == Errors.NONE) {
            throw new IllegalArgumentException("A successful produce answer is not a failure: " + result);
        }
        boolean refresh = STALE_METADATA.contains(error);
        if (result.baseOffset() >= 0 || error == Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND) {
            // PRO-3: in the leader's log already; it may be kept or truncated. Never resent.
            return new Decision(false, refresh, error, Written.APPENDED);
        }
        if (RETRIABLE_BEFORE_APPEND.contains(error)) {
            return new Decision(true, refresh, error, Written.NO);
        }
        if (FATAL_BEFORE_APPEND.contains(error)) {
            return new Decision(false, false, error, Written.NO);
        }
        // REQUEST_TIMED_OUT without offsets, KAFKA_STORAGE_ERROR (the disk failed during the append: the
        // bytes may survive recovery), UNKNOWN_SERVER_ERROR, ...: the append's fate is unknown.
        return new Decision(false, refresh, error, Written.UNKNOWN);
    }

    /** A request that failed as a whole: the transport, or a request-level error code. */
    static Decision forFailure(Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof DisconnectedException d) {
            return d.maybeSent()
                    ? new Decision(false, true, Errors.NETWORK_EXCEPTION, Written.UNKNOWN)
                    : new Decision(true, true, Errors.NETWORK_EXCEPTION, Written.NO);
        }
        if (t instanceof TimeoutException) {
            return new Decision(false, true, Errors.REQUEST_TIMED_OUT, Written.UNKNOWN);
        }
        if (t instanceof RequestFailedException r && (r.errorCode() == ErrorCodes.UNSUPPORTED_VERSION
                || r.errorCode() == ErrorCodes.CLUSTER_AUTHORIZATION_FAILED)) {
            // Refused before any handler ran (NET-1, SEC-2).
            return new Decision(false, false, Errors.INVALID_REQUEST, Written.NO);
        }
        return new Decision(false, true, Errors.UNKNOWN_SERVER_ERROR, Written.UNKNOWN);
    }

    static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
