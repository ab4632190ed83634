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

import dev.insync.replication.log.TopicPartition;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Field checks shared by the record constructors (so a decoded record is always well formed). */
final class RecordChecks {

    /** Kafka's limit on topic names. */
    static final int MAX_TOPIC_NAME_LENGTH = 249;
    /** Bound on any replica list (replicas, ISR, ELR, ...). */
    static final int MAX_REPLICAS = 1024;

    private RecordChecks() {
    }

    static int brokerId(String what, int id) {
        if (id < 0) {
            throw new IllegalArgumentException(what + " must be a broker id (>= 0), got " + id);
        }
        return id;
    }

    static long nonNegative(String what, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(what + " must be >= 0, got " + value);
        }
        return value;
    }

    static String topic(String topic) {
        if (topic == null || topic.isEmpty() || topic.length() > MAX_TOPIC_NAME_LENGTH
                || topic.equals(".") || topic.equals("..")) {
            throw new IllegalArgumentException("Invalid topic name '" + topic + "'");
        }
        for (int i = 0; i < topic.length(); i++) {
            char c = topic.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!legal) {
                throw new IllegalArgumentException("Invalid topic name '" + topic + "': only [a-zA-Z0-9._-] are allowed");
            }
        }
        return topic;
    }

    static TopicPartition partition(TopicPartition tp) {
        if (tp == null) {
            throw new IllegalArgumentException("Missing topic partition");
        }
        topic(tp.topic());
        if (tp.partition() < 0) {
            throw new IllegalArgumentException("Negative partition index in " + tp);
        }
        return tp;
    }

    /** An immutable copy of a list of distinct broker ids. */
    static List<Integer> brokerIds(String what, List<Integer> ids) {
        if (ids == null) {
            throw new IllegalArgumentException("Missing " + what);
        }
        if (ids.size() > MAX_REPLICAS) {
            throw new IllegalArgumentException(what + " has " + ids.size() + " entries, at most " + MAX_REPLICAS + " allowed");
        }
        Set<Integer> seen = new HashSet<>();
        for (Integer id : ids) {
            if (id == null || id < 0 || !seen.add(id)) {
                throw new IllegalArgumentException(what + " " + ids + " must hold distinct broker ids");
            }
        }
        return List.copyOf(ids);
    }

    static int leader(int leader) {
        if (leader < -1) {
            throw new IllegalArgumentException("Leader must be a broker id or -1 (none), got " + leader);
        }
        return leader;
    }

    /**
     * The shape every partition state has: ISR, ELR and LastKnownElr disjoint; the leader, if any,
     * in the ISR; and, when {@code replicas} is given, every member an assigned replica.
     */
    static void partitionState(TopicPartition tp, List<Integer> replicas, List<Integer> isr, List<Integer> elr,
                               List<Integer> lastKnownElr, int leader) {
        if (replicas != null && !(replicas.containsAll(isr) && replicas.containsAll(elr) && replicas.containsAll(lastKnownElr))) {
            throw new IllegalArgumentException(tp + ": ISR " + isr + ", ELR " + elr + " and LastKnownElr " + lastKnownElr
                    + " must be subsets of the replicas " + replicas);
        }
        Set<Integer> seen = new HashSet<>(isr);
        for (Integer id : elr) {
            if (!seen.add(id)) {
                throw new IllegalArgumentException(tp + ": ELR " + elr + " overlaps the ISR " + isr);
            }
        }
        for (Integer id : lastKnownElr) {
            if (!seen.add(id)) {
                throw new IllegalArgumentException(tp + ": LastKnownElr " + lastKnownElr + " overlaps ISR " + isr + " or ELR " + elr);
            }
        }
        if (leader != -1 && !isr.contains(leader)) {
            throw new IllegalArgumentException(tp + ": leader " + leader + " is not in the ISR " + isr);
        }
    }
}
