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

package dev.insync.replication.netty;

import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.core.metadata.follower.MetadataImage;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.protocol.ControllerReply;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.function.Function;

/** Random valid controller requests and answers, for round trips and as the seeds of mutated frames. */
public final class TestControllerMessages {

    private static final Errors[] ERRORS = Errors.values();

    private TestControllerMessages() {
    }

    static Errors error(Random r) {
        return ERRORS[r.nextInt(ERRORS.length)];
    }

    static List<Integer> ids(Random r) {
        return TestMessages.ids(r);
    }

    public static RegisterBrokerRequest registerBrokerRequest(Random r) {
        int id = r.nextInt(1000);
        return new RegisterBrokerRequest(id, r.nextBoolean() ? -1 : r.nextLong(), endpoints(r));
    }

    /** LDR-4: 0 to 3 endpoints with distinct names; hosts up to the 255-byte bound. */
    public static List<Endpoint> endpoints(Random r) {
        int n = r.nextInt(4);
        List<Endpoint> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String host = switch (r.nextInt(3)) {
                case 0 -> "127.0.0." + r.nextInt(256);
                case 1 -> "h".repeat(Endpoint.MAX_STRING_BYTES);
                default -> "broker-" + r.nextInt(100) + ".example";
            };
            out.add(new Endpoint(i == 0 ? "PLAINTEXT" : "L" + i, r.nextBoolean() ? "PLAINTEXT" : "SSL", host,
                    1 + r.nextInt(65535)));
        }
        return out;
    }

    public static RegisterBrokerResponse registerBrokerResponse(Random r) {
        return new RegisterBrokerResponse(error(r), r.nextLong());
    }

    public static HeartbeatRequest heartbeatRequest(Random r) {
        List<TopicPartition> offline = new ArrayList<>();
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            offline.add(new TopicPartition(TestMessages.topic(r), r.nextInt(4)));
        }
        return new HeartbeatRequest(r.nextInt(1000), r.nextLong(), r.nextLong(), r.nextBoolean(), offline);
    }

    public static HeartbeatResponse heartbeatResponse(Random r) {
        return new HeartbeatResponse(error(r), r.nextBoolean(), r.nextBoolean());
    }

    public static AlterPartitionRequest alterPartitionRequest(Random r) {
        List<AlterPartitionRequest.Item> items = new ArrayList<>();
        for (TopicPartition tp : TestMessages.partitions(r, 4)) {
            List<AlterPartitionRequest.BrokerState> isr = new ArrayList<>();
            for (int id : ids(r)) {
                isr.add(new AlterPartitionRequest.BrokerState(id, r.nextBoolean() ? -1 : r.nextLong()));
            }
            items.add(new AlterPartitionRequest.Item(tp, r.nextInt(), r.nextInt(), isr, r.nextBoolean()));
        }
        return new AlterPartitionRequest(r.nextInt(1000), r.nextLong(), items);
    }

    public static AlterPartitionResponse alterPartitionResponse(Random r) {
        Map<TopicPartition, AlterPartitionResponse.PartitionResult> m = new HashMap<>();
        for (TopicPartition tp : TestMessages.partitions(r, 4)) {
            m.put(tp, new AlterPartitionResponse.PartitionResult(error(r), r.nextInt(5) - 1, r.nextInt(), ids(r),
                    r.nextInt()));
        }
        return new AlterPartitionResponse(error(r), m);
    }

    public static MetadataFetchRequest metadataFetchRequest(Random r) {
        return new MetadataFetchRequest(r.nextInt(1000), r.nextInt(3) == 0 ? -1 : r.nextLong() & Long.MAX_VALUE,
                r.nextLong() & Long.MAX_VALUE, 1 + r.nextInt(Integer.MAX_VALUE));
    }

    static PartitionRegistration partition(Random r, TopicPartition tp) {
        return new PartitionRegistration(tp, ids(r), ids(r), ids(r), ids(r), r.nextInt(5) - 1, r.nextInt(), r.nextInt(),
                r.nextBoolean());
    }

    public static List<PartitionRegistration> partitions(Random r) {
        List<PartitionRegistration> out = new ArrayList<>();
        for (TopicPartition tp : TestMessages.partitions(r, 3)) {
            out.add(partition(r, tp));
        }
        return out;
    }

    public static List<BrokerRegistration> brokers(Random r) {
        List<BrokerRegistration> out = new ArrayList<>();
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            out.add(new BrokerRegistration(r.nextInt(10), r.nextLong(), r.nextBoolean(), r.nextBoolean(), endpoints(r)));
        }
        return out;
    }

    static Map<String, Integer> minIsr(Random r) {
        Map<String, Integer> m = new LinkedHashMap<>();
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            m.put(TestMessages.topic(r), r.nextInt(4));
        }
        return m;
    }

    static Map<String, UUID> topicIds(Random r) {
        Map<String, UUID> m = new LinkedHashMap<>();
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            m.put(TestMessages.topic(r), new UUID(r.nextLong(), r.nextLong()));
        }
        return m;
    }

    public static MetadataFetchResponse metadataFetchResponse(Random r) {
        long after = r.nextInt(3) == 0 ? -1 : r.nextInt(1_000_000);
        Optional<MetadataImage> image = r.nextInt(3) == 0
                ? Optional.of(new MetadataImage(after + 1 + r.nextInt(100), brokers(r), partitions(r), minIsr(r), topicIds(r)))
                : Optional.empty();
        long offset = image.map(MetadataImage::offset).orElse(after);
        List<MetadataDelta> deltas = new ArrayList<>();
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
            offset += 1 + r.nextInt(5);
            List<TopicPartition> deleted = TestMessages.partitions(r, 2);
            deltas.add(new MetadataDelta(offset, brokers(r), partitions(r), deleted, minIsr(r), topicIds(r)));
        }
        return new MetadataFetchResponse(after, image, deltas);
    }

    public static CreateTopicRequest createTopicRequest(Random r) {
        Map<String, String> configs = new HashMap<>();
        if (r.nextBoolean()) {
            configs.put("min.insync.replicas", Integer.toString(r.nextInt(4)));
        }
        if (r.nextBoolean()) {
            configs.put("unclean.leader.election.enable", Boolean.toString(r.nextBoolean()));
        }
        if (r.nextBoolean()) {
            List<List<Integer>> assignment = new ArrayList<>();
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) {
                assignment.add(ids(r));
            }
            return CreateTopicRequest.withAssignment(TestMessages.topic(r), assignment, configs);
        }
        return CreateTopicRequest.withPlacement(TestMessages.topic(r), r.nextInt(10), r.nextInt(4) - 1, configs);
    }

    public static AlterTopicConfigRequest alterTopicConfigRequest(Random r) {
        return new AlterTopicConfigRequest(TestMessages.topic(r), r.nextBoolean() ? "min.insync.replicas"
                : "unclean.leader.election.enable", Integer.toString(r.nextInt(5)));
    }

    public static TopicDescription topicDescription(Random r) {
        return new TopicDescription(TestMessages.topic(r), r.nextInt(4), r.nextBoolean(), partitions(r));
    }

    /** {@code value} answered, or (a third of the time) a failure with an error, maybe a message and a hint. */
    public static <T> ControllerReply<T> reply(Random r, Function<Random, T> value) {
        if (r.nextInt(3) != 0) {
            return ControllerReply.ok(value.apply(r));
        }
        Errors e = ERRORS[1 + r.nextInt(ERRORS.length - 1)];
        if (e == Errors.NONE) {
            e = Errors.NOT_CONTROLLER;
        }
        return ControllerReply.failed(e, r.nextBoolean() ? null : "message " + r.nextInt() + " é",
                e == Errors.NOT_CONTROLLER && r.nextBoolean() ? r.nextInt(5) : ControllerReply.NO_CONTROLLER);
    }
}
