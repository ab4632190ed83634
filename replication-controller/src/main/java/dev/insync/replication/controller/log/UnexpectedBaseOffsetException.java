package dev.insync.replication.controller.log;

/**
 * An append whose required base offset is not the log's next offset: the appender built its
 * records on a state that is not the log's (Kafka's {@code requiredBaseOffset}). Nothing was
 * appended.
 */
public final class UnexpectedBaseOffsetException extends RuntimeException {

    /** @param message names both offsets */
    public UnexpectedBaseOffsetException(String message) {
        super(message);
    }
}
