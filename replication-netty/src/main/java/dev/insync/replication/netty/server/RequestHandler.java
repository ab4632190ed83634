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

import java.util.concurrent.CompletionStage;

/**
 * Serves one api. Called on a request-handler thread ({@code num.io.threads}), or, for a handler
 * registered as non-blocking ({@link ServedApis.Builder#addNonBlocking}), possibly on the event loop
 * that read the request; one request of a connection at a time in arrival order; may return a stage that completes
 * later on any thread (a parked fetch, an acks=all produce). A failed stage, or a thrown exception,
 * is answered UNKNOWN_SERVER_ERROR and the connection stays usable. For a request that gets no
 * response (acks=0) the stage's value is ignored.
 *
 * @param <Q> request
 * @param <R> response
 */
@FunctionalInterface
public interface RequestHandler<Q, R> {

    CompletionStage<R> handle(RequestContext context, Q request);
}
