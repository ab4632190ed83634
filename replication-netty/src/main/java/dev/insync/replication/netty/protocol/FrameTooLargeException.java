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
