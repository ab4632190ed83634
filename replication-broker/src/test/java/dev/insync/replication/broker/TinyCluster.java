package dev.insync.replication.broker;

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.controller.QuorumController;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.log.InMemoryMetadataLog;
import dev.insync.replication.controller.state.BrokerEntry;
import dev.insync.replication.controller.state.ControllerView;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.TopicPartition;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A controller ({@link QuorumController} on an {@link InMemoryMetadataLog}, on threads) and
 * {@link InsyncBroker}s on their own threads, joined by the tiniest network: a request server that
 * records each broker's handlers, and a transport that calls the leader's handlers on one network
 * thread. Every wait is bounded.
 */
final class TinyCluster implements AutoCloseable {

    static final long WAIT_MS = 15_000;
    static final long SESSION_TIMEOUT_MS = 3_000;

    final Path root;
    final ThreadScheduler controllerThreads = new ThreadScheduler();
    final InMemoryMetadataLog metadataLog = new InMemoryMetadataLog();
    final QuorumController controller;
    final Map<Integer, BrokerRequestHandlers> served = new ConcurrentHashMap<>();
    final List<InsyncBroker> started = new ArrayList<>();
    private final ExecutorService network = Executors.newSingleThreadExecutor(r -> new Thread(r, "tiny-network"));

    TinyCluster(Path root) {
        this.root = root;
        controller = new QuorumController(0, metadataLog.forNode(0), controllerThreads,
                ControllerConfig.DEFAULT.withBrokerSessionTimeoutMs(SESSION_TIMEOUT_MS));
        controller.start();
        metadataLog.elect(0);
        await(controller::isActive, "an active controller");
    }

    /** Broker {@code id}'s properties: its log directories under the root, fast polls and heartbeats. */
    Map<String, Object> properties(int id, int logDirs) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("node.id", id);
        List<String> dirs = new ArrayList<>();
        for (int d = 0; d < logDirs; d++) {
            dirs.add(root.resolve("broker-" + id + "-" + d).toString());
        }
        props.put("log.dirs", String.join(",", dirs));
        props.put("broker.heartbeat.interval.ms", 200);
        props.put("broker.session.timeout.ms", SESSION_TIMEOUT_MS);
        props.put("replica.fetch.wait.max.ms", 50);
        props.put("replica.fetch.backoff.ms", 50);
        props.put("request.timeout.ms", 5_000);
        return props;
    }

    /** A builder of broker {@code id} wired to this cluster (not built). */
    InsyncBroker.Builder builder(Map<String, Object> props) {
        int id = Integer.parseInt(props.get("node.id").toString());
        return InsyncBroker.builder(props)
                .transport(transport())
                .controllerEndpoints(Map.of(0, controller))
                .requestServer(handlers -> {
                    served.put(id, handlers);
                    return () -> served.remove(id, handlers);
                })
                .fileSync(dir -> FileSync.withoutFsync());
    }

    /** Builds and starts broker {@code id}, and waits until it serves and the controller unfenced it. */
    InsyncBroker start(InsyncBroker.Builder builder) {
        InsyncBroker broker = builder.build();
        started.add(broker);
        join(broker.start(), "broker " + broker.brokerId() + " serving");
        await(() -> brokerEntry(broker.brokerId()).map(b -> !b.fenced()).orElse(false), "broker unfenced");
        return broker;
    }

    private ReplicaTransport transport() {
        return (leaderId, request) -> {
            BrokerRequestHandlers leader = served.get(leaderId);
            if (leader == null) {
                return CompletableFuture.failedFuture(new IOException("broker " + leaderId + " does not serve"));
            }
            CompletableFuture<FetchResponse> response = new CompletableFuture<>();
            network.execute(() -> leader.fetch(request).whenComplete((r, e) -> {
                if (e != null) {
                    response.completeExceptionally(e);
                } else {
                    response.complete(r);
                }
            }));
            return response;
        };
    }

    List<PartitionRegistration> createTopic(String topic, List<List<Integer>> assignment, int minIsr) {
        return join(controller.createTopic(CreateTopicRequest.withAssignment(topic, assignment,
                Map.of("min.insync.replicas", Integer.toString(minIsr)))).toCompletableFuture(), "topic " + topic);
    }

    <T> T committed(Function<ControllerView, T> reader) {
        return join(controller.readCommitted(reader).toCompletableFuture(), "a committed read");
    }

    Optional<BrokerEntry> brokerEntry(int id) {
        return Optional.ofNullable(committed(v -> v.broker(id)));
    }

    PartitionRegistration partition(TopicPartition tp) {
        return committed(v -> v.partition(tp));
    }

    static <T> T join(CompletableFuture<T> future, String what) {
        try {
            return future.get(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("No " + what + " within " + WAIT_MS + " ms", e);
        }
    }

    /** Waits (bounded) until {@code condition} holds, re-checking every few milliseconds. */
    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as("%s within %d ms", what, WAIT_MS).isTrue();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    @Override
    public void close() {
        for (InsyncBroker b : started) {
            b.close();
        }
        controller.close();
        controllerThreads.close();
        network.shutdownNow();
    }
}
