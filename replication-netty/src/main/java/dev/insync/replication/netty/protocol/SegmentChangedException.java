package dev.insync.replication.netty.protocol;

import java.io.IOException;

/**
 * NET-3: the segment under a response's file region was truncated while the response was being
 * sent, so the bytes already sent may not be the ones read. The write fails and the connection
 * closes before the frame is complete (see {@link SegmentRegions}).
 */
public final class SegmentChangedException extends IOException {

    public SegmentChangedException(String message) {
        super(message);
    }
}
