package dev.insync.replication.netty.protocol;

/** A frame whose declared size is above the bound ({@code socket.request.max.bytes}, NET-1). */
public final class FrameTooLargeException extends RuntimeException {

    private final long size;
    private final int maxBytes;

    public FrameTooLargeException(long size, int maxBytes) {
        super("Frame of " + size + " bytes is larger than the maximum of " + maxBytes
                + " bytes (socket.request.max.bytes)");
        this.size = size;
        this.maxBytes = maxBytes;
    }

    public long size() {
        return size;
    }

    public int maxBytes() {
        return maxBytes;
    }
}
