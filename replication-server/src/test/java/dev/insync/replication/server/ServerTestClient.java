package dev.insync.replication.server;

import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.NotControllerException;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.SimpleRecord;
import dev.insync.replication.netty.client.ClientConnection;
import dev.insync.replication.netty.client.NettyControllerApi;
import dev.insync.replication.netty.client.NetworkClient;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.Apis;
import dev.insync.replication.netty.protocol.MetadataRequest;
import dev.insync.replication.netty.protocol.MetadataResponse;
import dev.insync.replication.netty.protocol.ProduceRequest;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

/**
 * A tiny client for tests of server processes: Metadata, Produce and consumer Fetch over the
 * Netty classes, and CreateTopics at whichever controller node is active. Every call is bounded
 * by {@link #CALL_TIMEOUT_MS}. Not a product client (that is {@code InsyncClient}'s job).
 */
public final class ServerTestClient implements AutoCloseable {

    /** Bound of one call. */
    public static final long CALL_TIMEOUT_MS = 15_000;

    private final ThreadScheduler scheduler = new ThreadScheduler();
    private final NetworkClient client = new NetworkClient("test-client",
            NetworkConfig.builder().requestTimeoutMs(10_000).build(), Optional.empty(), scheduler, 1, new Random(7));
    private final Map<String, ClientConnection> connections = new ConcurrentHashMap<>();
    private final Map<Integer, NettyControllerApi> controllers = new ConcurrentHashMap<>();

    private ClientConnection to(InetSocketAddress address) {
        return connections.computeIfAbsent(address.toString(), k -> client.connection("test-to-" + k,
                () -> Optional.of(new InetSocketAddress(address.getHostString(), address.getPort())), "test-client"));
    }

    /** The Metadata of every topic, asked of the broker at {@code address}. */
    public MetadataResponse metadata(InetSocketAddress address) throws Exception {
        return get(to(address).send(Apis.METADATA, Apis.METADATA.maxVersion(), MetadataRequest.allTopics()));
    }

    /** One partition as the broker at {@code address} describes it, if it knows it. */
    public Optional<PartitionRegistration> partition(InetSocketAddress address, TopicPartition tp) {
        try {
            return metadata(address).topics().stream().filter(t -> t.name().equals(tp.topic()))
                    .flatMap(t -> t.partitions().stream()).filter(p -> p.topicPartition().equals(tp)).findFirst();
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** Produces {@code values} as one batch to {@code tp} at the broker at {@code address}. */
    public ProduceResult produce(InetSocketAddress address, TopicPartition tp, int acks, List<String> values)
            throws Exception {
        SimpleRecord[] records = new SimpleRecord[values.size()];
        for (int i = 0; i < records.length; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(), null, values.get(i).getBytes(StandardCharsets.UTF_8));
        }
        ProduceRequest request = new ProduceRequest((short) acks, 10_000, Map.of(tp, MemoryRecords.withRecords(records)));
        return get(to(address).send(Apis.PRODUCE, Apis.PRODUCE.maxVersion(), request)).partitions().get(tp);
    }

    /** Every record value below the HW of {@code tp}, read as a consumer from offset 0 at the broker at {@code address}. */
    public List<String> consumeAll(InetSocketAddress address, TopicPartition tp) throws Exception {
        List<String> out = new ArrayList<>();
        long offset = 0;
        while (true) {
            FetchRequest request = FetchRequest.consumer()
                    .partition(tp, FetchRequest.PartitionData.at(offset, 1024 * 1024)).build();
            FetchResponse response = get(to(address).send(Apis.FETCH, Apis.FETCH.maxVersion(), request));
            FetchResponse.PartitionData data = response.partitionData(0);
            if (data.error() != Errors.NONE) {
                throw new IllegalStateException("Fetch of " + tp + " at " + offset + " from " + address + ": " + data.error());
            }
            List<RecordBatch> batches = data.records().toMemoryRecords().batches();
            if (batches.isEmpty()) {
                return out;
            }
            for (RecordBatch batch : batches) {
                for (Record r : batch.records()) {
                    if (r.offset() >= offset) {
                        out.add(text(r.value()));
                    }
                }
                offset = batch.nextOffset();
            }
        }
    }

    private static String text(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] bytes = new byte[d.remaining()];
        d.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Creates a topic at the active one of {@code controllers} (id → listener), following NOT_CONTROLLER. */
    public List<PartitionRegistration> createTopic(Map<Integer, InetSocketAddress> controllerListeners,
                                                   CreateTopicRequest request) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CALL_TIMEOUT_MS * 2);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            for (Map.Entry<Integer, InetSocketAddress> e : controllerListeners.entrySet()) {
                NettyControllerApi api = controllers.computeIfAbsent(e.getKey(), id -> new NettyControllerApi(id,
                        () -> Optional.of(new InetSocketAddress(e.getValue().getHostString(), e.getValue().getPort())),
                        client, "test-admin"));
                try {
                    return get(api.createTopic(request));
                } catch (ExecutionException ex) {
                    if (!(ex.getCause() instanceof NotControllerException)) {
                        last = ex;
                    }
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // between rounds while no node leads yet
        }
        throw new AssertionError("No controller created " + request.topic(), last);
    }

    private static <T> T get(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    /** Waits until {@code condition} holds, at most {@code timeoutMs}, checking every 20 ms. */
    public static void await(String what, long timeoutMs, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Not within " + timeoutMs + " ms: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    @Override
    public void close() {
        controllers.values().forEach(NettyControllerApi::close);
        client.close();
        scheduler.close();
    }
}
