package dev.insync.replication.netty.protocol;

/**
 * NET-3: a response's file slice could not be opened for sending: its segment was deleted, or
 * truncated, after the read. Nothing of the frame was written; the request is answered as failed
 * and the peer fetches again.
 */
public final class RecordsUnavailableException extends RuntimeException {

    public RecordsUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
