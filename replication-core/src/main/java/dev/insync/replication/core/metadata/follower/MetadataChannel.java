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

package dev.insync.replication.core.metadata.follower;

import java.util.concurrent.CompletionStage;

/**
 * A broker's way to the committed metadata log (CTL-5): separate from
 * {@link dev.insync.replication.core.metadata.ControllerChannel} because any controller node may
 * serve it, not only the active one. A stage may fail (transport error) or never complete (lost
 * link); {@link MetadataFollower} retries and abandons unanswered requests itself.
 */
public interface MetadataChannel {

    /** Long poll for the committed metadata after {@code request.afterOffset()}. */
    CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request);
}
