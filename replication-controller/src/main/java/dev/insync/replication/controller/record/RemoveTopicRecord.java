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

package dev.insync.replication.controller.record;

import java.util.Objects;
import java.util.UUID;

/**
 * A topic was deleted (Kafka's {@code RemoveTopicRecord}): the topic, its configs and all its
 * partitions are gone from the state, and brokers stop and delete their replicas. It names the id
 * as well as the name, so that replay refuses to delete a later topic of the same name.
 *
 * @param name     topic name
 * @param topicId  the id of the incarnation deleted
 */
public record RemoveTopicRecord(String name, UUID topicId) implements MetadataRecord {

    /** Validates the fields. */
    public RemoveTopicRecord {
        RecordChecks.topic(name);
        Objects.requireNonNull(topicId, "topicId");
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.REMOVE_TOPIC;
    }
}
