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

import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.core.metadata.follower.MetadataImage;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;

/**
 * The bodies of the controller's requests and answers, version 0 (docs/protocol.md, "Controller
 * apis"). Every answer is a {@link ControllerReply}: {@code error int16}, then the value when it is 0,
 * else {@code error_message nullable string, active_controller int32}. Maps are written sorted by
 * key and must be read strictly increasing, so that a frame that decodes re-encodes to the same bytes
 * (NET-1) and no key appears twice. A broker id a request claims (SEC-2) must be 0 or more.
 */
public final class ControllerCodecs {

    /** Bounds of config names and values (e.g. {@code min.insync.replicas}, {@code 2}). */
    public static final int CONFIG_NAME_MAX_BYTES = 255;
    public static final int CONFIG_VALUE_MAX_BYTES = 1024;
    /** A failure's message is cut to this many UTF-8 bytes. */
    public static final int ERROR_MESSAGE_MAX_BYTES = 4096;

    /** topic string (3 bytes at least), partition int32. */
    private static final int MIN_TOPIC_PARTITION_BYTES = 3 + 4;
    /** Four empty id arrays and the fixed fields of a partition registration. */
    private static final int MIN_PARTITION_REGISTRATION_BYTES = MIN_TOPIC_PARTITION_BYTES + 4 * 4 + 4 * 3 + 1;
    private static final int BROKER_REGISTRATION_BYTES = 4 + 8 + 1 + 1;
    /** Three strings of at least one byte and a port. */
    private static final int MIN_ENDPOINT_BYTES = 3 * (2 + 1) + 4;

    private ControllerCodecs() {
    }

    /** A codec from two functions. */
    private static <T> MessageCodec<T> codec(Writer<T> writer, Reader<T> reader) {
        return new MessageCodec<>() {
            @Override
            public void write(T message, short version, WireWriter out) {
                writer.write(message, out);
            }

            @Override
            public T read(short version, WireReader in) {
                return reader.read(in);
            }
        };
    }

    private interface Writer<T> {
        void write(T message, WireWriter out);
    }

    private interface Reader<T> {
        T read(WireReader in);
    }

    /** A codec whose layout depends on the api version. */
    private static <T> MessageCodec<T> versioned(VersionedWriter<T> writer, VersionedReader<T> reader) {
        return new MessageCodec<>() {
            @Override
            public void write(T message, short version, WireWriter out) {
                writer.write(message, version, out);
            }

            @Override
            public T read(short version, WireReader in) {
                return reader.read(version, in);
            }
        };
    }

    private interface VersionedWriter<T> {
        void write(T message, short version, WireWriter out);
    }

    private interface VersionedReader<T> {
        T read(short version, WireReader in);
    }

    /** The first version of BrokerRegistration and MetadataFetch that carries brokers' endpoints (LDR-4). */
    public static final short ENDPOINTS_VERSION = 1;
    /** The first version of MetadataFetch that carries topic ids (a deleted topic's log is told from a new one's). */
    public static final short TOPIC_IDS_VERSION = 2;

    // ------------------------------------------------------------------------------------ the reply

    /** {@code error int16}, then {@code value} if 0, else {@code error_message nullable string, active_controller int32}. */
    public static <T> MessageCodec<ControllerReply<T>> reply(MessageCodec<T> value) {
        return new MessageCodec<>() {
            @Override
            public void write(ControllerReply<T> r, short version, WireWriter out) {
                out.int16(r.error().code());
                if (r.error() == Errors.NONE) {
                    value.write(r.value(), version, out);
                } else {
                    out.nullableString(cut(r.errorMessage()), ERROR_MESSAGE_MAX_BYTES, "error message");
                    out.int32(r.activeControllerId());
                }
            }

            @Override
            public ControllerReply<T> read(short version, WireReader in) {
                short code = in.int16("controller reply error");
                if (code == 0) {
                    return ControllerReply.ok(value.read(version, in));
                }
                Errors error = ErrorCodes.toErrors(code); // a code this build does not know: UNKNOWN_SERVER_ERROR
                String message = in.nullableString("error message", ERROR_MESSAGE_MAX_BYTES);
                int hintPos = in.position();
                int hint = in.int32("active controller");
                if (hint < ControllerReply.NO_CONTROLLER) {
                    throw new MalformedFrameException("Malformed frame: active controller at byte " + hintPos + " is "
                            + hint);
                }
                return ControllerReply.failed(error, message, hint);
            }
        };
    }

    /** {@code message} cut to at most {@link #ERROR_MESSAGE_MAX_BYTES} UTF-8 bytes. */
    static String cut(String message) {
        if (message == null || message.getBytes(StandardCharsets.UTF_8).length <= ERROR_MESSAGE_MAX_BYTES) {
            return message;
        }
        String s = message.substring(0, Math.min(message.length(), ERROR_MESSAGE_MAX_BYTES));
        while (s.getBytes(StandardCharsets.UTF_8).length > ERROR_MESSAGE_MAX_BYTES) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    // ------------------------------------------------------------------------------ registration (62)

    /**
     * broker_id int32 (≥ 0), previous_broker_epoch int64; from v1 endpoints array of endpoint. A v0
     * request registers no endpoints; a request with endpoints cannot be written as v0 (they would be lost).
     */
    public static final MessageCodec<RegisterBrokerRequest> REGISTER_BROKER_REQUEST = versioned(
            (r, version, out) -> {
                out.int32(brokerId(r.brokerId())).int64(r.previousBrokerEpoch());
                if (version >= ENDPOINTS_VERSION) {
                    endpoints(r.endpoints(), out);
                } else if (!r.endpoints().isEmpty()) {
                    throw new IllegalArgumentException("BrokerRegistration v" + version + " cannot carry the endpoints of broker "
                            + r.brokerId() + " (v" + ENDPOINTS_VERSION + " and later do)");
                }
            },
            (version, in) -> {
                int id = in.int32AtLeast("broker id", 0);
                long previous = in.int64("previous broker epoch");
                List<Endpoint> endpoints = version >= ENDPOINTS_VERSION ? endpoints(in, id) : List.of();
                return new RegisterBrokerRequest(id, previous, endpoints);
            });

    /** error int16, broker_epoch int64. */
    public static final MessageCodec<RegisterBrokerResponse> REGISTER_BROKER_RESPONSE = codec(
            (r, out) -> out.int16(r.error().code()).int64(r.brokerEpoch()),
            in -> new RegisterBrokerResponse(ErrorCodes.toErrors(in.int16("registration error")),
                    in.int64("broker epoch")));

    // ------------------------------------------------------------------------------- heartbeat (63)

    /** broker_id int32 (≥ 0), broker_epoch int64, metadata_offset int64, want_shut_down bool, offline_replicas array of (topic, partition). */
    public static final MessageCodec<HeartbeatRequest> HEARTBEAT_REQUEST = codec(
            (r, out) -> {
                out.int32(brokerId(r.brokerId())).int64(r.brokerEpoch()).int64(r.metadataOffset()).bool(r.wantShutDown());
                out.arrayLength(r.offlineReplicas().size());
                r.offlineReplicas().forEach(tp -> topicPartition(tp, out));
            },
            in -> {
                int id = in.int32AtLeast("broker id", 0);
                long epoch = in.int64("broker epoch");
                long offset = in.int64("metadata offset");
                boolean shutDown = in.bool("want shut down");
                int n = in.arrayLength("offline replicas", MIN_TOPIC_PARTITION_BYTES);
                List<TopicPartition> offline = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    offline.add(topicPartition(in, "offline replica"));
                }
                return new HeartbeatRequest(id, epoch, offset, shutDown, offline);
            });

    /** error int16, fenced bool, should_shut_down bool. */
    public static final MessageCodec<HeartbeatResponse> HEARTBEAT_RESPONSE = codec(
            (r, out) -> out.int16(r.error().code()).bool(r.fenced()).bool(r.shouldShutDown()),
            in -> new HeartbeatResponse(ErrorCodes.toErrors(in.int16("heartbeat error")), in.bool("fenced"),
                    in.bool("should shut down")));

    // --------------------------------------------------------------------------- AlterPartition (56)

    /**
     * broker_id int32 (≥ 0), broker_epoch int64, items array of: topic, partition, leader_epoch int32,
     * partition_epoch int32, new_isr array of (broker_id int32, broker_epoch int64), recovered bool.
     */
    public static final MessageCodec<AlterPartitionRequest> ALTER_PARTITION_REQUEST = codec(
            (r, out) -> {
                out.int32(brokerId(r.brokerId())).int64(r.brokerEpoch());
                out.arrayLength(r.items().size());
                for (AlterPartitionRequest.Item item : r.items()) {
                    topicPartition(item.topicPartition(), out);
                    out.int32(item.leaderEpoch()).int32(item.partitionEpoch());
                    out.arrayLength(item.newIsr().size());
                    item.newIsr().forEach(b -> out.int32(b.brokerId()).int64(b.brokerEpoch()));
                    out.bool(item.recovered());
                }
            },
            in -> {
                int id = in.int32AtLeast("broker id", 0);
                long epoch = in.int64("broker epoch");
                int n = in.arrayLength("alter partition items", MIN_TOPIC_PARTITION_BYTES + 4 + 4 + 4 + 1);
                List<AlterPartitionRequest.Item> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    TopicPartition tp = topicPartition(in, "alter partition item");
                    int leaderEpoch = in.int32("leader epoch");
                    int partitionEpoch = in.int32("partition epoch");
                    int m = in.arrayLength("new isr of " + tp, 4 + 8);
                    List<AlterPartitionRequest.BrokerState> isr = new ArrayList<>(m);
                    for (int j = 0; j < m; j++) {
                        isr.add(new AlterPartitionRequest.BrokerState(in.int32("isr broker id"),
                                in.int64("isr broker epoch")));
                    }
                    items.add(new AlterPartitionRequest.Item(tp, leaderEpoch, partitionEpoch, isr, in.bool("recovered")));
                }
                return new AlterPartitionRequest(id, epoch, items);
            });

    /**
     * error int16, partitions (sorted) array of: topic, partition, error int16, leader_id int32,
     * leader_epoch int32, isr int32 array, partition_epoch int32.
     */
    public static final MessageCodec<AlterPartitionResponse> ALTER_PARTITION_RESPONSE = codec(
            (r, out) -> {
                out.int16(r.error().code());
                Map<TopicPartition, AlterPartitionResponse.PartitionResult> sorted = sorted(r.partitions());
                out.arrayLength(sorted.size());
                sorted.forEach((tp, p) -> {
                    topicPartition(tp, out);
                    out.int16(p.error().code()).int32(p.leaderId()).int32(p.leaderEpoch());
                    ids(p.isr(), out);
                    out.int32(p.partitionEpoch());
                });
            },
            in -> {
                Errors error = ErrorCodes.toErrors(in.int16("alter partition error"));
                int n = in.arrayLength("alter partition results", MIN_TOPIC_PARTITION_BYTES + 2 + 4 + 4 + 4 + 4);
                Map<TopicPartition, AlterPartitionResponse.PartitionResult> results = new LinkedHashMap<>();
                TopicPartition previous = null;
                for (int i = 0; i < n; i++) {
                    TopicPartition tp = topicPartition(in, "alter partition result");
                    previous = increasing(in, previous, tp);
                    Errors e = ErrorCodes.toErrors(in.int16("partition error"));
                    int leader = in.int32("leader id");
                    int leaderEpoch = in.int32("leader epoch");
                    List<Integer> isr = ids(in, "isr");
                    results.put(tp, new AlterPartitionResponse.PartitionResult(e, leader, leaderEpoch, isr,
                            in.int32("partition epoch")));
                }
                return new AlterPartitionResponse(error, results);
            });

    // ------------------------------------------------------------------------- metadata fetch (1000)

    /** broker_id int32, after_offset int64 (≥ -1), max_wait_ms int64 (≥ 0), max_deltas int32 (≥ 1). */
    public static final MessageCodec<MetadataFetchRequest> METADATA_FETCH_REQUEST = codec(
            (r, out) -> out.int32(r.brokerId()).int64(r.afterOffset()).int64(r.maxWaitMs()).int32(r.maxDeltas()),
            in -> new MetadataFetchRequest(in.int32("broker id"), in.int64("after offset"), in.int64("max wait ms"),
                    in.int32("max deltas")));

    /** after_offset int64, image (bool present, then the image), deltas array of delta. */
    public static final MessageCodec<MetadataFetchResponse> METADATA_FETCH_RESPONSE = versioned(
            (r, version, out) -> {
                out.int64(r.afterOffset());
                out.bool(r.image().isPresent());
                r.image().ifPresent(image -> {
                    out.int64(image.offset());
                    brokers(image.brokers(), version, out);
                    partitions(image.partitions(), out);
                    minIsr(image.minInsyncReplicasByTopic(), out);
                    topicIds(image.topicIds(), version, out);
                });
                out.arrayLength(r.deltas().size());
                for (MetadataDelta d : r.deltas()) {
                    out.int64(d.offset());
                    brokers(d.brokers(), version, out);
                    partitions(d.partitions(), out);
                    out.arrayLength(d.deletedPartitions().size());
                    d.deletedPartitions().forEach(tp -> topicPartition(tp, out));
                    minIsr(d.minInsyncReplicasByTopic(), out);
                    topicIds(d.topicIds(), version, out);
                }
            },
            (version, in) -> {
                long after = in.int64("after offset");
                Optional<MetadataImage> image = Optional.empty();
                if (in.bool("image present")) {
                    long offset = in.int64("image offset");
                    image = Optional.of(new MetadataImage(offset, brokers(in, version), partitions(in), minIsr(in),
                            topicIds(in, version)));
                }
                int n = in.arrayLength("deltas", 8 + 4 * 4);
                List<MetadataDelta> deltas = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    long offset = in.int64("delta offset");
                    List<BrokerRegistration> brokers = brokers(in, version);
                    List<PartitionRegistration> partitions = partitions(in);
                    int m = in.arrayLength("deleted partitions", MIN_TOPIC_PARTITION_BYTES);
                    List<TopicPartition> deleted = new ArrayList<>(m);
                    for (int j = 0; j < m; j++) {
                        deleted.add(topicPartition(in, "deleted partition"));
                    }
                    Map<String, Integer> minIsr = minIsr(in);
                    deltas.add(new MetadataDelta(offset, brokers, partitions, deleted, minIsr, topicIds(in, version)));
                }
                return new MetadataFetchResponse(after, image, deltas);
            });

    // --------------------------------------------------------------------------------- admin (19, 44, 75, 1001)

    /**
     * topic, assignment array of int32 arrays, partitions int32, replication_factor int32, configs
     * (sorted) array of (name string, value string).
     */
    public static final MessageCodec<CreateTopicRequest> CREATE_TOPIC_REQUEST = codec(
            (r, out) -> {
                topic(r.topic(), out);
                out.arrayLength(r.assignment().size());
                r.assignment().forEach(replicas -> ids(replicas, out));
                out.int32(r.partitions()).int32(r.replicationFactor());
                Map<String, String> configs = new TreeMap<>(r.configs());
                out.arrayLength(configs.size());
                configs.forEach((k, v) -> out.string(k, CONFIG_NAME_MAX_BYTES, "config name")
                        .string(v, CONFIG_VALUE_MAX_BYTES, "config value"));
            },
            in -> {
                String topic = in.topic("topic");
                int n = in.arrayLength("assignment", 4);
                List<List<Integer>> assignment = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    assignment.add(ids(in, "replicas"));
                }
                int partitions = in.int32("partitions");
                int replicationFactor = in.int32("replication factor");
                int m = in.arrayLength("configs", 4);
                Map<String, String> configs = new LinkedHashMap<>();
                String previous = null;
                for (int i = 0; i < m; i++) {
                    int pos = in.position();
                    String name = in.string("config name", CONFIG_NAME_MAX_BYTES);
                    if (previous != null && name.compareTo(previous) <= 0) {
                        throw new MalformedFrameException("Malformed frame: config name '" + name + "' at byte " + pos
                                + " does not follow '" + previous + "'");
                    }
                    previous = name;
                    configs.put(name, in.string("config value", CONFIG_VALUE_MAX_BYTES));
                }
                return new CreateTopicRequest(topic, assignment, partitions, replicationFactor, configs);
            });

    /** partitions array of partition registration. */
    public static final MessageCodec<List<PartitionRegistration>> PARTITIONS = codec(
            ControllerCodecs::partitions, ControllerCodecs::partitions);

    /** topic, name string, value string. */
    public static final MessageCodec<AlterTopicConfigRequest> ALTER_TOPIC_CONFIG_REQUEST = codec(
            (r, out) -> topic(r.topic(), out)
                    .string(r.name(), CONFIG_NAME_MAX_BYTES, "config name")
                    .string(r.value(), CONFIG_VALUE_MAX_BYTES, "config value"),
            in -> new AlterTopicConfigRequest(in.topic("topic"), in.string("config name", CONFIG_NAME_MAX_BYTES),
                    in.string("config value", CONFIG_VALUE_MAX_BYTES)));

    /** Nothing: the answer to a config change is its success. */
    public static final MessageCodec<Void> NOTHING = codec((r, out) -> { }, in -> null);

    /** broker_id int32 (≥ 0). */
    public static final MessageCodec<Integer> FENCE_BROKER_REQUEST = codec(
            (id, out) -> out.int32(brokerId(id)), in -> in.int32AtLeast("broker id", 0));

    /** fenced bool. */
    public static final MessageCodec<Boolean> FENCED = codec((b, out) -> out.bool(b), in -> in.bool("fenced"));

    /** topic. */
    public static final MessageCodec<String> DESCRIBE_TOPIC_REQUEST = codec(
            (t, out) -> topic(t, out), in -> in.topic("topic"));

    /** topic: the topic to delete. */
    public static final MessageCodec<String> DELETE_TOPIC_REQUEST = codec(
            (t, out) -> topic(t, out), in -> in.topic("topic"));

    /** topic, min_insync_replicas int32, unclean_leader_election bool, partitions array of partition registration. */
    public static final MessageCodec<TopicDescription> TOPIC_DESCRIPTION = codec(
            (d, out) -> {
                topic(d.topic(), out).int32(d.minInsyncReplicas())
                        .bool(d.uncleanLeaderElection());
                partitions(d.partitions(), out);
            },
            in -> new TopicDescription(in.topic("topic"), in.int32("min insync replicas"),
                    in.bool("unclean leader election"), partitions(in)));

    // ------------------------------------------------------------------------------------- pieces

    private static int brokerId(int id) {
        if (id < 0) {
            throw new IllegalArgumentException("A broker id on the wire is 0 or more, got " + id);
        }
        return id;
    }

    /** A topic name the reader accepts ({@link WireReader#topic}): checked before it is written. */
    private static WireWriter topic(String topic, WireWriter out) {
        new TopicPartition(topic, 0); // throws IllegalArgumentException naming what is wrong with it
        return out.string(topic, Limits.TOPIC_NAME_MAX_BYTES, "topic");
    }

    private static void topicPartition(TopicPartition tp, WireWriter out) {
        out.string(tp.topic(), Limits.TOPIC_NAME_MAX_BYTES, "topic").int32(tp.partition());
    }

    private static TopicPartition topicPartition(WireReader in, String what) {
        String topic = in.topic(what + " topic");
        return new TopicPartition(topic, in.partition(what + " partition of " + topic));
    }

    private static TopicPartition increasing(WireReader in, TopicPartition previous, TopicPartition tp) {
        if (previous != null && ORDER.compare(tp, previous) <= 0) {
            throw in.malformed("partition " + tp, "does not follow " + previous + " (duplicate or out of order)");
        }
        return tp;
    }

    private static final Comparator<TopicPartition> ORDER = Comparator.comparing(TopicPartition::topic)
            .thenComparingInt(TopicPartition::partition);

    private static <V> Map<TopicPartition, V> sorted(Map<TopicPartition, V> m) {
        Map<TopicPartition, V> out = new TreeMap<>(ORDER);
        out.putAll(m);
        return out;
    }

    private static void ids(List<Integer> ids, WireWriter out) {
        out.arrayLength(ids.size());
        ids.forEach(out::int32);
    }

    private static List<Integer> ids(WireReader in, String field) {
        int n = in.arrayLength(field, 4);
        List<Integer> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(in.int32(field));
        }
        return ids;
    }

    /** Before v1 a broker registration has no endpoints: an old reader gets the rest (it could not use them). */
    private static void brokers(List<BrokerRegistration> brokers, short version, WireWriter out) {
        out.arrayLength(brokers.size());
        for (BrokerRegistration b : brokers) {
            out.int32(b.brokerId()).int64(b.brokerEpoch()).bool(b.fenced()).bool(b.inControlledShutdown());
            if (version >= ENDPOINTS_VERSION) {
                endpoints(b.endpoints(), out);
            }
        }
    }

    private static List<BrokerRegistration> brokers(WireReader in, short version) {
        int minBytes = BROKER_REGISTRATION_BYTES + (version >= ENDPOINTS_VERSION ? 4 : 0);
        int n = in.arrayLength("brokers", minBytes);
        List<BrokerRegistration> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int id = in.int32("broker id");
            long epoch = in.int64("broker epoch");
            boolean fenced = in.bool("fenced");
            boolean shuttingDown = in.bool("in controlled shutdown");
            List<Endpoint> endpoints = version >= ENDPOINTS_VERSION ? endpoints(in, id) : List.of();
            out.add(new BrokerRegistration(id, epoch, fenced, shuttingDown, endpoints));
        }
        return out;
    }

    /** {@code endpoint := listener_name string, security_protocol string, host string, port int32 (1..65535)}. */
    private static void endpoints(List<Endpoint> endpoints, WireWriter out) {
        out.arrayLength(endpoints.size());
        for (Endpoint e : endpoints) {
            out.string(e.listenerName(), Limits.HOST_MAX_BYTES, "listener name")
                    .string(e.securityProtocol(), Limits.HOST_MAX_BYTES, "security protocol")
                    .string(e.host(), Limits.HOST_MAX_BYTES, "host").int32(e.port());
        }
    }

    private static List<Endpoint> endpoints(WireReader in, int brokerId) {
        int pos = in.position();
        int n = in.arrayLength("endpoints of broker " + brokerId, MIN_ENDPOINT_BYTES);
        List<Endpoint> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int at = in.position();
            String name = in.string("listener name", Limits.HOST_MAX_BYTES);
            String protocol = in.string("security protocol", Limits.HOST_MAX_BYTES);
            String host = in.string("host", Limits.HOST_MAX_BYTES);
            int port = in.int32("port");
            try {
                out.add(new Endpoint(name, protocol, host, port));
            } catch (IllegalArgumentException e) {
                throw new MalformedFrameException("Malformed frame: endpoint at byte " + at + " of broker " + brokerId
                        + ": " + e.getMessage());
            }
        }
        try {
            return Endpoint.checkedList(brokerId, out);
        } catch (IllegalArgumentException e) {
            throw new MalformedFrameException("Malformed frame: endpoints at byte " + pos + ": " + e.getMessage());
        }
    }

    /** topic, partition, replicas, isr, elr, last_known_elr (int32 arrays), leader, leader_epoch, partition_epoch int32, recovering bool. */
    private static void partitions(List<PartitionRegistration> partitions, WireWriter out) {
        out.arrayLength(partitions.size());
        for (PartitionRegistration p : partitions) {
            topicPartition(p.topicPartition(), out);
            ids(p.replicas(), out);
            ids(p.isr(), out);
            ids(p.elr(), out);
            ids(p.lastKnownElr(), out);
            out.int32(p.leader()).int32(p.leaderEpoch()).int32(p.partitionEpoch()).bool(p.recovering());
        }
    }

    private static List<PartitionRegistration> partitions(WireReader in) {
        int n = in.arrayLength("partitions", MIN_PARTITION_REGISTRATION_BYTES);
        List<PartitionRegistration> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            TopicPartition tp = topicPartition(in, "partition registration");
            List<Integer> replicas = ids(in, "replicas");
            List<Integer> isr = ids(in, "isr");
            List<Integer> elr = ids(in, "elr");
            List<Integer> lastKnownElr = ids(in, "last known elr");
            out.add(new PartitionRegistration(tp, replicas, isr, elr, lastKnownElr, in.int32("leader"),
                    in.int32("leader epoch"), in.int32("partition epoch"), in.bool("recovering")));
        }
        return out;
    }

    private static void minIsr(Map<String, Integer> byTopic, WireWriter out) {
        Map<String, Integer> sorted = new TreeMap<>(byTopic);
        out.arrayLength(sorted.size());
        sorted.forEach((t, v) -> topic(t, out).int32(v));
    }

    private static Map<String, Integer> minIsr(WireReader in) {
        return byTopic(in, "min insync replicas", 4, r -> r.int32("min insync replicas"));
    }

    /**
     * An array of (topic, value) sorted by topic, as a writer's TreeMap gives it; a repeated or
     * out-of-order topic is malformed.
     */
    private static <V> Map<String, V> byTopic(WireReader in, String field, int minValueBytes,
                                              Function<WireReader, V> value) {
        int n = in.arrayLength(field, 3 + minValueBytes);
        Map<String, V> out = new LinkedHashMap<>();
        String previous = null;
        for (int i = 0; i < n; i++) {
            int pos = in.position();
            String topic = in.topic(field + " topic");
            if (previous != null && topic.compareTo(previous) <= 0) {
                throw new MalformedFrameException("Malformed frame: " + field + " topic '" + topic + "' at byte "
                        + pos + " does not follow '" + previous + "'");
            }
            previous = topic;
            out.put(topic, value.apply(in));
        }
        return out;
    }

    /** v2+: topic ids array of (topic, id int64 most significant, int64 least significant), sorted by topic; v0-1: nothing. */
    private static void topicIds(Map<String, UUID> ids, short version, WireWriter out) {
        if (version < TOPIC_IDS_VERSION) {
            return; // a broker of an older build knows topics by name alone
        }
        Map<String, UUID> sorted = new TreeMap<>(ids);
        out.arrayLength(sorted.size());
        sorted.forEach((t, id) -> topic(t, out).uuid(id));
    }

    private static Map<String, UUID> topicIds(WireReader in, short version) {
        if (version < TOPIC_IDS_VERSION) {
            return Map.of();
        }
        return byTopic(in, "topic ids", 16, r -> r.uuid("topic id"));
    }
}
