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

package dev.insync.replication.core.server;

import dev.insync.replication.core.purgatory.DelayedOperation;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A long-poll fetch parked until enough bytes are readable, an error or divergence appears, or
 * {@code maxWaitMs} passes (FET-5). Re-reads never update follower state (FET-4).
 *
 * <p>Every re-read goes through the broker's own read, so a partition that is no longer hosted
 * answers per FET-2 (NOT_LEADER_OR_FOLLOWER for a known topic) and an I/O failure during a re-read
 * takes only that partition offline (§9) instead of escaping into the appending thread.
 */
final class DelayedFetch extends DelayedOperation {

    /**
     * One read of the request's partitions and whether it satisfies the fetch; the response is null
     * when the read was not satisfied and its answer was not asked for (the fetch stays parked).
     */
    record Read(FetchResponse response, boolean satisfied) {
    }

    private final FetchRequest request;
    private final Function<FetchRequest, Read> reread;
    private final Function<FetchRequest, Read> check;
    private final CompletableFuture<FetchResponse> future;
    private volatile FetchResponse ready;

    /**
     * @param check  what each wake runs: may answer "not satisfied" with no response (and without reading)
     * @param reread the read at expiry, which always answers
     */
    DelayedFetch(FetchRequest request, Function<FetchRequest, Read> check, Function<FetchRequest, Read> reread,
                 CompletableFuture<FetchResponse> future) {
        super(request.maxWaitMs());
        this.request = request;
        this.check = check;
        this.reread = reread;
        this.future = future;
    }

    @Override
    public boolean tryComplete() {
        Read read = check.apply(request);
        if (!read.satisfied()) {
            return false;
        }
        ready = read.response();
        return forceComplete();
    }

    @Override
    public void onExpiration() {
        // FET-5: on expiry the fetch returns what there is.
    }

    @Override
    public void onComplete() {
        FetchResponse response = ready;
        future.complete(response != null ? response : reread.apply(request).response());
    }

    @Override
    public String toString() {
        return "DelayedFetch(replicaId=" + request.replicaId() + ", " + request.partitions().keySet() + ")";
    }
}
