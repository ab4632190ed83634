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

import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-partition part of a message: an array of topic blocks, each a topic name and an array of
 * partition entries, in message order. Consecutive partitions of one topic share a block, so the
 * order of the partitions is kept exactly (a fetcher matches answers by position) while a topic's
 * name is written once per run. Decoding is strict, so that a frame that decodes re-encodes to the
 * same bytes: no empty block, no block repeating the previous block's topic, no partition twice.
 */
final class TopicBlocks {

    /** Bytes of a topic block with a one-byte name and no partitions. */
    static final int MIN_BLOCK_BYTES = 2 + 1 + 4;

    interface EntryWriter<V> {
        void write(V value, WireWriter out);
    }

    interface EntryReader<V> {
        V read(int partition, WireReader in);
    }

    private TopicBlocks() {
    }

    static <V> void write(Map<TopicPartition, V> entries, WireWriter out, EntryWriter<V> writer) {
        List<Map.Entry<TopicPartition, V>> list = new ArrayList<>(entries.entrySet());
        List<Integer> runStarts = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            if (i == 0 || !list.get(i).getKey().topic().equals(list.get(i - 1).getKey().topic())) {
                runStarts.add(i);
            }
        }
        out.arrayLength(runStarts.size());
        for (int r = 0; r < runStarts.size(); r++) {
            int from = runStarts.get(r);
            int to = r + 1 < runStarts.size() ? runStarts.get(r + 1) : list.size();
            out.string(list.get(from).getKey().topic(), Limits.TOPIC_NAME_MAX_BYTES, "topic");
            out.arrayLength(to - from);
            for (int i = from; i < to; i++) {
                out.int32(list.get(i).getKey().partition());
                writer.write(list.get(i).getValue(), out);
            }
        }
    }

    /**
     * Reads the blocks into an ordered map.
     *
     * @param minEntryBytes the smallest encoding of one partition entry, its index included
     */
    static <V> Map<TopicPartition, V> read(WireReader in, String what, int minEntryBytes, EntryReader<V> reader) {
        int topics = in.arrayLength(what + " topics", MIN_BLOCK_BYTES);
        Map<TopicPartition, V> out = new LinkedHashMap<>();
        String previous = null;
        for (int t = 0; t < topics; t++) {
            String topic = in.topic(what + " topic");
            if (topic.equals(previous)) {
                throw in.malformed(what + " topic '" + topic + "'", "repeats the previous block's topic");
            }
            previous = topic;
            int partitions = in.arrayLength(what + " partitions of " + topic, minEntryBytes);
            if (partitions == 0) {
                throw in.malformed(what + " partitions of " + topic, "is an empty block");
            }
            for (int p = 0; p < partitions; p++) {
                int partition = in.partition(what + " partition index of " + topic);
                TopicPartition tp = new TopicPartition(topic, partition);
                V value = reader.read(partition, in);
                if (out.putIfAbsent(tp, value) != null) {
                    throw in.malformed(what + " partition " + tp, "appears twice");
                }
            }
        }
        return out;
    }
}
