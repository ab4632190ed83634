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

package dev.insync.replication.core.rpc;

/**
 * How a fetch's record bytes come back from the leader's logs (NET-3).
 */
public enum RecordsForm {

    /**
     * Copied into the heap at the read ({@code MemoryRecords}): for consumers inside the JVM (the
     * in-memory network, the simulator) and for a TLS listener, whose encryption needs the bytes in
     * memory anyway. The bytes are those of the read whatever happens to the log afterwards.
     */
    HEAP,

    /**
     * Left in the segment files ({@code FileRecords} slices) for a plaintext network server to send
     * from the file to the socket without copying them into the heap (sendfile). A slice whose segment
     * is truncated before it is sent is never sent as other bytes (see {@code FileRecords}).
     */
    FILE
}
