package dev.insync.replication.controller.state;

/**
 * A record that does not fit the state it is replayed on (a broker epoch that is not its offset,
 * an unknown partition, a partition epoch that does not follow, an offset gap ...): the log is
 * not one this controller wrote, or it is damaged. The message names the offset. The state that
 * threw must not be used any more.
 */
public final class MetadataReplayException extends RuntimeException {

    /** @param message names the offset and what is wrong */
    public MetadataReplayException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @param message names the offset and what is wrong */
    public MetadataReplayException(String message) {
        super(message);
    }
}
