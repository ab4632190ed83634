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
 * The body layout of one message type, for every version its {@link Api} supports. {@link #read}
 * consumes exactly the body or throws {@link MalformedFrameException}; it never throws anything else
 * on bad input (runtime checks of record constructors are turned into that exception).
 *
 * @param <T> the message
 */
public interface MessageCodec<T> {

    /** Writes {@code message} as version {@code version}. */
    void write(T message, short version, WireWriter out);

    /** Reads a version-{@code version} body; the caller checks that nothing is left over. */
    T read(short version, WireReader in);
}
