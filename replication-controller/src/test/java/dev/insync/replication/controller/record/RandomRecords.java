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

import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/** Valid random metadata records of every type, from a seed. */
public final class RandomRecords {

    private static final String TOPIC_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";

    private RandomRecords() {
    }

    public static MetadataRecord record(Random r) {
        MetadataRecordType type = MetadataRecordType.values()[r.nextInt(MetadataRecordType.values().length)];
        return switch (type) {
            case REGISTER_BROKER -> {
                boolean everUnfenced = r.nextBoolean();
                yield new RegisterBrokerRecord(r.nextInt(Integer.MAX_VALUE), epoch(r), r.nextBoolean() ? -1 : epoch(r),
                        r.nextBoolean(), !everUnfenced || r.nextBoolean(), r.nextBoolean(), everUnfenced, endpoints(r));
            }
            case FENCE_BROKER -> new FenceBrokerRecord(r.nextInt(1000), epoch(r));
            case UNFENCE_BROKER -> new UnfenceBrokerRecord(r.nextInt(1000), epoch(r));
            case BROKER_SHUTDOWN -> new BrokerShutdownRecord(r.nextInt(1000), epoch(r));
            case REPLICAS_OFFLINE -> {
                List<TopicPartition> partitions = new ArrayList<>();
                int n = 1 + r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    partitions.add(new TopicPartition(topic(r), i));
                }
                yield new ReplicasOfflineRecord(r.nextInt(1000), epoch(r), partitions);
            }
            case TOPIC -> new TopicRecord(topic(r), 1 + r.nextInt(TopicRecord.MAX_PARTITIONS), topicId(r));
            case REMOVE_TOPIC -> new RemoveTopicRecord(topic(r), topicId(r));
            case PARTITION -> {
                State s = state(r);
                yield new PartitionRecord(new TopicPartition(topic(r), r.nextInt(1000)), s.replicas, s.isr, s.elr,
                        s.lastKnownElr, s.leader, r.nextInt(Integer.MAX_VALUE), r.nextInt(Integer.MAX_VALUE),
                        LeaderRecoveryState.of(r.nextBoolean()));
            }
            case PARTITION_CHANGE -> {
                State s = state(r);
                yield new PartitionChangeRecord(new TopicPartition(topic(r), r.nextInt(1000)), s.leader,
                        r.nextInt(Integer.MAX_VALUE), r.nextInt(Integer.MAX_VALUE), s.isr, s.elr, s.lastKnownElr,
                        LeaderRecoveryState.of(r.nextBoolean()));
            }
            case CONFIG -> r.nextBoolean()
                    ? ConfigRecord.minInsyncReplicas(topic(r), 1 + r.nextInt(Integer.MAX_VALUE - 1))
                    : ConfigRecord.uncleanLeaderElection(topic(r), r.nextBoolean());
        };
    }

    private record State(List<Integer> replicas, List<Integer> isr, List<Integer> elr, List<Integer> lastKnownElr,
                         int leader) {
    }

    private static State state(Random r) {
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ids.add(r.nextInt(5) == 0 ? 1000 + i : i);
        }
        Collections.shuffle(ids, r);
        List<Integer> replicas = List.copyOf(ids.subList(0, 1 + r.nextInt(8)));
        List<Integer> isr = new ArrayList<>();
        List<Integer> elr = new ArrayList<>();
        List<Integer> lke = new ArrayList<>();
        for (int id : replicas) {
            switch (r.nextInt(4)) {
                case 0 -> isr.add(id);
                case 1 -> elr.add(id);
                case 2 -> lke.add(id);
                default -> { }
            }
        }
        int leader = isr.isEmpty() || r.nextInt(4) == 0 ? -1 : isr.get(r.nextInt(isr.size()));
        return new State(replicas, isr, elr, lke, leader);
    }

    /** 0 to {@link Endpoint#MAX_ENDPOINTS} endpoints with distinct names, hosts up to the 255-byte bound. */
    public static List<Endpoint> endpoints(Random r) {
        int n = r.nextInt(4) == 0 ? 0 : r.nextInt(10) == 0 ? Endpoint.MAX_ENDPOINTS : 1 + r.nextInt(3);
        List<Endpoint> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String host = switch (r.nextInt(4)) {
                case 0 -> "127.0.0." + r.nextInt(256);
                case 1 -> "::1";
                case 2 -> "h".repeat(Endpoint.MAX_STRING_BYTES);
                default -> "broker-" + r.nextInt(1000) + ".example.com";
            };
            out.add(new Endpoint((i == 0 ? "PLAINTEXT" : "LISTENER_" + i), r.nextBoolean() ? "PLAINTEXT" : "SSL",
                    host, 1 + r.nextInt(65535)));
        }
        return out;
    }

    private static UUID topicId(Random r) {
        UUID id = new UUID(r.nextLong(), r.nextLong());
        return id.getMostSignificantBits() == 0 && id.getLeastSignificantBits() == 0 ? new UUID(0, 1) : id;
    }

    private static long epoch(Random r) {
        return r.nextInt(3) == 0 ? r.nextInt(100) : r.nextLong() & Long.MAX_VALUE;
    }

    private static String topic(Random r) {
        int length = r.nextInt(10) == 0 ? 249 : 1 + r.nextInt(20);
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(TOPIC_CHARS.charAt(r.nextInt(TOPIC_CHARS.length())));
        }
        String s = sb.toString();
        return s.equals(".") || s.equals("..") ? "t" + s : s;
    }
}
