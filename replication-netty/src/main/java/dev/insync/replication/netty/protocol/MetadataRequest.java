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

import java.util.List;
import java.util.Optional;

/**
 * A Metadata request: the named topics, or every topic when {@code topics} is empty (a null array
 * on the wire).
 */
public record MetadataRequest(Optional<List<String>> topics) {

    public MetadataRequest {
        topics = topics.map(List::copyOf);
    }

    /** Every topic. */
    public static MetadataRequest allTopics() {
        return new MetadataRequest(Optional.empty());
    }

    /** These topics. */
    public static MetadataRequest of(List<String> topics) {
        return new MetadataRequest(Optional.of(topics));
    }
}
