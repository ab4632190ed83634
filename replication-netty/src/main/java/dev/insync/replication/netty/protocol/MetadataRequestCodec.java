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

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Metadata request v0: topics, a nullable array of topic names (-1: every topic). */
public final class MetadataRequestCodec implements MessageCodec<MetadataRequest> {

    public static final MetadataRequestCodec INSTANCE = new MetadataRequestCodec();

    private MetadataRequestCodec() {
    }

    @Override
    public void write(MetadataRequest r, short version, WireWriter out) {
        if (r.topics().isEmpty()) {
            out.arrayLength(-1);
            return;
        }
        out.arrayLength(r.topics().get().size());
        r.topics().get().forEach(t -> out.string(t, Limits.TOPIC_NAME_MAX_BYTES, "topic"));
    }

    @Override
    public MetadataRequest read(short version, WireReader in) {
        int n = in.nullableArrayLength("metadata topics", 3);
        if (n < 0) {
            return MetadataRequest.allTopics();
        }
        List<String> topics = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            topics.add(in.topic("metadata topic"));
        }
        return new MetadataRequest(Optional.of(topics));
    }
}
