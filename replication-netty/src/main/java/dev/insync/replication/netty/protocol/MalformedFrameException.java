package dev.insync.replication.netty.protocol;

/**
 * A frame that does not follow the protocol (NET-1): a field runs past the frame's end, a length
 * or count is out of bounds, a string is not UTF-8, a value is out of its domain, or bytes are left
 * over. The message names the field and its byte position in the frame. A server that meets one
 * closes that connection and counts it; it never reaches a handler.
 */
public final class MalformedFrameException extends RuntimeException {

    public MalformedFrameException(String message) {
        super(message);
    }

    public MalformedFrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
