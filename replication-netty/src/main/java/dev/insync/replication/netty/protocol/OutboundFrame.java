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
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;

import java.util.List;

/**
 * One encoded frame as the messages to write, in order: buffers, and for record bytes sent from
 * segment files (NET-3) {@link FileRegion}s between them. Most frames are a single buffer. The
 * writer owns the parts until they are written or {@link #release()}d.
 *
 * @param parts       {@link ByteBuf}s and {@link FileRegion}s, the size prefix in the first
 * @param sizeInBytes the frame's bytes on the wire, its size prefix included
 */
public record OutboundFrame(List<Object> parts, long sizeInBytes) {

    /** Immutable copy; the first part is a buffer (it holds the size prefix). */
    public OutboundFrame {
        parts = List.copyOf(parts);
        if (parts.isEmpty() || !(parts.get(0) instanceof ByteBuf)) {
            throw new IllegalArgumentException("A frame starts with a buffer holding its size prefix");
        }
        for (Object p : parts) {
            if (!(p instanceof ByteBuf) && !(p instanceof FileRegion)) {
                throw new IllegalArgumentException("A frame part is a ByteBuf or a FileRegion, not " + p.getClass());
            }
        }
    }

    /** A frame that is one buffer. */
    public static OutboundFrame of(ByteBuf frame) {
        return new OutboundFrame(List.of(frame), frame.readableBytes());
    }

    /** How many parts are sent from files. */
    public int fileRegionCount() {
        int n = 0;
        for (Object p : parts) {
            if (p instanceof FileRegion) {
                n++;
            }
        }
        return n;
    }

    /** Frees every part (a frame that will not be written). */
    public void release() {
        for (Object p : parts) {
            ReferenceCountUtil.safeRelease(p);
        }
    }
}
