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
