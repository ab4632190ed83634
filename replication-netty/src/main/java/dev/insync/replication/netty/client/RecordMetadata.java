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

package dev.insync.replication.netty.client;

import dev.insync.replication.log.TopicPartition;

import java.util.Objects;

/**
 * Where an acknowledged record was written (PRO-5).
 *
 * @param topicPartition its partition
 * @param offset         its offset; -1 with acks=0, whose requests get no answer
 * @param leaderEpoch    the leader epoch its batch was appended in (LOG-4); -1 with acks=0
 */
public record RecordMetadata(TopicPartition topicPartition, long offset, int leaderEpoch) {

    public RecordMetadata {
        Objects.requireNonNull(topicPartition, "topicPartition");
    }

    @Override
    public String toString() {
        return topicPartition + "@" + offset + " (leader epoch " + leaderEpoch + ")";
    }
}
