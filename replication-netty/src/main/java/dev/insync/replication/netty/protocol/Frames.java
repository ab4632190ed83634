/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.insync.replication.netty.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Whole frames: int32 size (of what follows), header, body (NET-1). The size is patched in once the
 * body is written, so encoders never compute sizes by hand.
 */
public final class Frames {

    /** The size prefix. */
    public static final int SIZE_PREFIX_BYTES = 4;

    private Frames() {
    }

    /** A request frame. */
    public static <Q> ByteBuf request(ByteBufAllocator alloc, RequestHeader header, Api<Q, ?> api, Q body) {
        WireWriter w = new WireWriter(alloc);
        try {
            w.int32(0);
            header.write(w);
            api.requestCodec().write(body, header.apiVersion(), w);
            return sealed(w.finish());
        } catch (RuntimeException e) {
            w.discard();
            throw e;
        }
    }

    /** A response frame with error code 0 and {@code body}. */
    public static <R> ByteBuf response(ByteBufAllocator alloc, int correlationId, Api<?, R> api, short version, R body) {
        WireWriter w = new WireWriter(alloc);
        try {
            w.int32(0);
            new ResponseHeader(correlationId, (short) 0).write(w);
            api.responseCodec().write(body, version, w);
            return sealed(w.finish());
        } catch (RuntimeException e) {
            w.discard();
            throw e;
        }
    }

    /**
     * A response frame with error code 0 and {@code body}, as the messages to write: with
     * {@code fileRegions} (NET-3, a plaintext connection) records still in segment files are sent
     * from them as file regions, else they are copied into the frame.
     *
     * @throws RecordsUnavailableException if such records' segment was deleted or truncated since the read
     */
    public static <R> OutboundFrame responseFrame(ByteBufAllocator alloc, int correlationId, Api<?, R> api,
                                                  short version, R body, boolean fileRegions) {
        WireWriter w = new WireWriter(alloc, fileRegions);
        try {
            w.int32(0);
            new ResponseHeader(correlationId, (short) 0).write(w);
            api.responseCodec().write(body, version, w);
            OutboundFrame frame = w.finishFrame();
            long size = frame.sizeInBytes() - SIZE_PREFIX_BYTES;
            if (size > Integer.MAX_VALUE) {
                frame.release();
                throw new IllegalArgumentException(api.name() + " response of " + size + " bytes does not fit a frame");
            }
            ((ByteBuf) frame.parts().get(0)).setInt(0, (int) size);
            return frame;
        } catch (RuntimeException e) {
            w.discard();
            throw e;
        }
    }

    /** A response frame that is only a header with a non-zero request-level error code. */
    public static ByteBuf errorResponse(ByteBufAllocator alloc, int correlationId, short errorCode) {
        if (errorCode == 0) {
            throw new IllegalArgumentException("An error response needs a non-zero error code");
        }
        ByteBuf buf = alloc.buffer(SIZE_PREFIX_BYTES + ResponseHeader.SIZE);
        buf.writeInt(ResponseHeader.SIZE).writeInt(correlationId).writeShort(errorCode);
        return buf;
    }

    private static ByteBuf sealed(ByteBuf frame) {
        frame.setInt(0, frame.readableBytes() - SIZE_PREFIX_BYTES);
        return frame;
    }
}
