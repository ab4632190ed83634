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
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Cuts the byte stream into frames (NET-1): int32 size, then that many bytes, passed on as one
 * buffer without the prefix. A size above {@code maxFrameBytes} ({@code socket.request.max.bytes})
 * is refused as soon as its four bytes arrive, before any of the frame is buffered, with a
 * {@link FrameTooLargeException}; a negative size is a {@link MalformedFrameException}. After either,
 * everything else on the connection is discarded (the handler closes it).
 */
public final class FrameDecoder extends ByteToMessageDecoder {

    private final int maxFrameBytes;
    private boolean failed;

    public FrameDecoder(int maxFrameBytes) {
        if (maxFrameBytes < 1) {
            throw new IllegalArgumentException("Frame bound must be positive, got " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < Frames.SIZE_PREFIX_BYTES) {
            return;
        }
        int size = in.getInt(in.readerIndex());
        if (size < 0) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw new MalformedFrameException("Malformed frame: negative frame size " + size);
        }
        if (size > maxFrameBytes) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw new FrameTooLargeException(size, maxFrameBytes);
        }
        if (in.readableBytes() < Frames.SIZE_PREFIX_BYTES + size) {
            return;
        }
        in.skipBytes(Frames.SIZE_PREFIX_BYTES);
        out.add(in.readRetainedSlice(size));
    }
}
