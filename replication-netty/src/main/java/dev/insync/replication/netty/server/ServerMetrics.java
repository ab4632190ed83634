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

package dev.insync.replication.netty.server;

import java.util.concurrent.atomic.LongAdder;

/** Counters of one server, thread-safe and cheap to bump. */
public final class ServerMetrics {

    private final LongAdder connectionsAccepted = new LongAdder();
    private final LongAdder requests = new LongAdder();
    private final LongAdder malformedFrames = new LongAdder();
    private final LongAdder oversizedFrames = new LongAdder();
    private final LongAdder unsupportedRequests = new LongAdder();
    private final LongAdder authorizationFailures = new LongAdder();
    private final LongAdder handlerFailures = new LongAdder();
    private final LongAdder idleConnectionsClosed = new LongAdder();
    private final LongAdder tlsHandshakeFailures = new LongAdder();
    private final LongAdder fileRegionsWritten = new LongAdder();
    private final LongAdder recordsUnavailable = new LongAdder();
    private final LongAdder corkedFlushes = new LongAdder();

    void connectionAccepted() { connectionsAccepted.increment(); }
    void request() { requests.increment(); }
    void malformedFrame() { malformedFrames.increment(); }
    void oversizedFrame() { oversizedFrames.increment(); }
    void unsupportedRequest() { unsupportedRequests.increment(); }
    void authorizationFailure() { authorizationFailures.increment(); }
    void handlerFailure() { handlerFailures.increment(); }
    void idleConnectionClosed() { idleConnectionsClosed.increment(); }
    void tlsHandshakeFailure() { tlsHandshakeFailures.increment(); }
    void fileRegionWritten() { fileRegionsWritten.increment(); }
    void recordsUnavailableAnswer() { recordsUnavailable.increment(); }
    void corkedFlush() { corkedFlushes.increment(); }

    /** Connections accepted since start. */
    public long connectionsAccepted() { return connectionsAccepted.sum(); }
    /** Requests decoded and dispatched (or answered with an error) since start. */
    public long requests() { return requests.sum(); }
    /** NET-1: frames that did not follow the protocol; each closed its connection. */
    public long malformedFrames() { return malformedFrames.sum(); }
    /** NET-1: frames over {@code socket.request.max.bytes}; each closed its connection. */
    public long oversizedFrames() { return oversizedFrames.sum(); }
    /** NET-1: requests for an unknown api or version, answered UNSUPPORTED_VERSION. */
    public long unsupportedRequests() { return unsupportedRequests.sum(); }
    /** SEC-2: broker-identity claims refused, answered CLUSTER_AUTHORIZATION_FAILED. */
    public long authorizationFailures() { return authorizationFailures.sum(); }
    /** Handlers that failed; answered UNKNOWN_SERVER_ERROR. */
    public long handlerFailures() { return handlerFailures.sum(); }
    /** NET-2: connections closed after {@code connections.max.idle.ms}. */
    public long idleConnectionsClosed() { return idleConnectionsClosed.sum(); }
    /** SEC-1: TLS handshakes that failed (no or untrusted certificate, protocol mismatch). */
    public long tlsHandshakeFailures() { return tlsHandshakeFailures.sum(); }
    /** NET-3: file regions written (two per record slice sent from a segment file without copying). */
    public long fileRegionsWritten() { return fileRegionsWritten.sum(); }
    /**
     * NET-3: answers whose record slices' segments were deleted or truncated before or while they were
     * sent: answered UNKNOWN_SERVER_ERROR before the frame started, or the connection closed mid-frame.
     */
    public long recordsUnavailable() { return recordsUnavailable.sum(); }
    /**
     * Flushes of frames with file regions that went out corked (epoll only) and were uncorked after
     * the flush, so that each such frame leaves in one go rather than one segment per write.
     */
    public long corkedFlushes() { return corkedFlushes.sum(); }

    @Override
    public String toString() {
        return "ServerMetrics(connections=" + connectionsAccepted() + ", requests=" + requests() + ", malformed="
                + malformedFrames() + ", oversized=" + oversizedFrames() + ", unsupported=" + unsupportedRequests()
                + ", unauthorized=" + authorizationFailures() + ", handlerFailures=" + handlerFailures() + ", idleClosed="
                + idleConnectionsClosed() + ", tlsFailures=" + tlsHandshakeFailures() + ", fileRegions="
                + fileRegionsWritten() + ", recordsUnavailable=" + recordsUnavailable() + ", corkedFlushes=" + corkedFlushes()
                + ")";
    }
}
