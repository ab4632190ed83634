package dev.insync.replication.netty.client;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.RecordingReplicaService;
import dev.insync.replication.netty.RecordingReplicaService.ProduceCall;
import dev.insync.replication.netty.client.ProduceFailedException.Written;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.BrokerEndpoint;
import dev.insync.replication.netty.server.MetadataView;
import dev.insync.replication.netty.server.NettyServer;
import dev.insync.replication.netty.server.ReplicaApiHandlers;
import dev.insync.replication.netty.server.ServedApis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client's live retry path against one real server on loopback whose replica service the test
 * answers by hand: what is resent, what is not, and how many produces are in flight at once.
 */
class InsyncClientRetryTest {

    private static final long WAIT_MS = 20_000;
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final ThreadScheduler scheduler = new ThreadScheduler();
    private final RecordingReplicaService service = new RecordingReplicaService();
    private final NettyServer server;
    private final InetSocketAddress address;
    private InsyncClient client;

    InsyncClientRetryTest() {
        MetadataView[] view = new MetadataView[1];
        server = NettyServer.builder().name("scripted").bindAddress(new InetSocketAddress("127.0.0.1", 0))
                .config(NetworkConfig.builder().numNetworkThreads(1).numIoThreads(2).build()).scheduler(scheduler)
                .apis(ReplicaApiHandlers.register(ServedApis.builder(), service, new MetadataView() {
                    @Override
                    public List<BrokerEndpoint> brokers() {
                        return view[0].brokers();
                    }

                    @Override
                    public int controllerId() {
                        return -1;
                    }

                    @Override
                    public Collection<String> topicNames() {
                        return view[0].topicNames();
                    }

                    @Override
                    public List<PartitionRegistration> partitions(String topic) {
                        return view[0].partitions(topic);
                    }
                }).build())
                .build();
        address = server.start();
        view[0] = MetadataView.of(List.of(new BrokerEndpoint(1, "127.0.0.1", address.getPort())), -1,
                List.of(PartitionRegistration.builder(TP).replicas(1).isr(1).leader(1).build()));
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        server.close();
        scheduler.close();
    }

    private InsyncClient client(Map<String, Object> extra) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", "127.0.0.1:" + address.getPort(),
                "linger.ms", 0, "retry.backoff.ms", 10, "request.timeout.ms", 5_000, "delivery.timeout.ms", 10_000));
        props.putAll(extra);
        client = InsyncClient.builder(props).build();
        return client;
    }

    private ProduceCall produceCall(int index) throws InterruptedException {
        return (ProduceCall) service.awaitCalls(index + 1, WAIT_MS).stream().filter(c -> c instanceof ProduceCall)
                .skip(index).findFirst().orElseThrow();
    }

    private static void answer(ProduceCall call, ProduceResult result) {
        call.answer().complete(Map.of(TP, result));
    }

    private static ProduceFailedException failure(CompletableFuture<RecordMetadata> f) {
        try {
            f.get(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            return (ProduceFailedException) e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("Expected a failure");
    }

    @Test
    @DisplayName("PRO-2 PRO-5 NOT_LEADER_OR_FOLLOWER before the append: the same bytes are sent again and the record gets the second answer's offset")
    void notLeaderIsRetried() throws Exception {
        CompletableFuture<RecordMetadata> f = client(Map.of()).send(TP, null, "v".getBytes());
        ProduceCall first = produceCall(0);
        answer(first, ProduceResult.failed(Errors.NOT_LEADER_OR_FOLLOWER));
        ProduceCall second = produceCall(1);
        assertThat(second.entries().get(TP)).isEqualTo(first.entries().get(TP));
        answer(second, new ProduceResult(Errors.NONE, 7L, -1L, 2));
        assertThat(f.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(new RecordMetadata(TP, 7L, 2));
    }

    @Test
    @DisplayName("PRO-2 NOT_ENOUGH_REPLICAS (nothing written) is retried until the ISR is back")
    void notEnoughReplicasIsRetried() throws Exception {
        CompletableFuture<RecordMetadata> f = client(Map.of()).send(TP, null, "v".getBytes());
        answer(produceCall(0), ProduceResult.failed(Errors.NOT_ENOUGH_REPLICAS));
        answer(produceCall(1), ProduceResult.failed(Errors.NOT_ENOUGH_REPLICAS));
        answer(produceCall(2), new ProduceResult(Errors.NONE, 0L, -1L, 0));
        assertThat(f.get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isZero();
    }

    @Test
    @DisplayName("PRO-3 NOT_ENOUGH_REPLICAS_AFTER_APPEND is not resent: the record fails as APPENDED and no second produce arrives")
    void afterAppendIsNotRetried() throws Exception {
        CompletableFuture<RecordMetadata> f = client(Map.of()).send(TP, null, "v".getBytes());
        answer(produceCall(0), new ProduceResult(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, 3L, -1L, 0));
        ProduceFailedException e = failure(f);
        assertThat(e.error()).isEqualTo(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        assertThat(e.written()).isEqualTo(Written.APPENDED);
        // A later record goes out as the next produce: nothing was resent in between.
        CompletableFuture<RecordMetadata> next = client.send(TP, null, "w".getBytes());
        ProduceCall call = produceCall(1);
        assertThat(call.entries().get(TP).batches().get(0).records().get(0).value())
                .isEqualTo(java.nio.ByteBuffer.wrap("w".getBytes()));
        answer(call, new ProduceResult(Errors.NONE, 4L, -1L, 0));
        assertThat(next.get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isEqualTo(4);
    }

    @Test
    @DisplayName("NET-2 no answer within request.timeout.ms: the record fails with a timeout of unknown fate and is not resent")
    void timeoutIsNotRetried() throws Exception {
        CompletableFuture<RecordMetadata> f = client(Map.of("request.timeout.ms", 300, "delivery.timeout.ms", 5_000))
                .send(TP, null, "v".getBytes());
        produceCall(0); // never answered
        ProduceFailedException e = failure(f);
        assertThat(e.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        assertThat(e.written()).isEqualTo(Written.UNKNOWN);
        assertThat(service.calls().stream().filter(c -> c instanceof ProduceCall)).hasSize(1);
    }

    @Test
    @DisplayName("LOG-5 a validation error is final: MESSAGE_TOO_LARGE fails the record as not written, once")
    void fatalErrorIsNotRetried() throws Exception {
        CompletableFuture<RecordMetadata> f = client(Map.of()).send(TP, null, "v".getBytes());
        answer(produceCall(0), ProduceResult.failed(Errors.MESSAGE_TOO_LARGE));
        ProduceFailedException e = failure(f);
        assertThat(e.error()).isEqualTo(Errors.MESSAGE_TOO_LARGE);
        assertThat(e.written()).isEqualTo(Written.NO);
    }

    @Test
    @DisplayName("retries=0: a retriable refusal fails the record at once")
    void retriesZero() throws Exception {
        CompletableFuture<RecordMetadata> f = client(Map.of("retries", 0)).send(TP, null, "v".getBytes());
        answer(produceCall(0), ProduceResult.failed(Errors.NOT_LEADER_OR_FOLLOWER));
        assertThat(failure(f).getMessage()).contains("no retry left");
    }

    @Test
    @DisplayName("NET-2 max.in.flight.requests.per.connection bounds the produces unanswered on one broker; an answer lets the next one go")
    void inFlightBound() throws Exception {
        InsyncClient c = client(Map.of("max.in.flight.requests.per.connection", 2, "batch.size", 1));
        List<CompletableFuture<RecordMetadata>> futures = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            futures.add(c.send(TP, null, ("v" + i).getBytes()));
        }
        ProduceCall first = produceCall(0);
        produceCall(1);
        // The sender's own state, after it handled every append: two in flight, three batches held back.
        assertThat(c.producesInFlightAndBatchesWaiting(1).get(WAIT_MS, TimeUnit.MILLISECONDS)).containsExactly(2, 3);
        assertThat(service.calls().stream().filter(x -> x instanceof ProduceCall)).hasSize(2);
        answer(first, new ProduceResult(Errors.NONE, 0L, -1L, 0));
        ProduceCall third = produceCall(2);
        assertThat(third.entries()).containsKey(TP);
        assertThat(futures.get(0).get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isZero();
        for (int i = 1; i < 5; i++) {
            answer(produceCall(i), new ProduceResult(Errors.NONE, i, -1L, 0));
        }
        for (int i = 1; i < 5; i++) {
            assertThat(futures.get(i).get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isEqualTo(i);
        }
    }

    @Test
    @DisplayName("PRO-5 delivery.timeout.ms: a record whose partition has no leader fails, not written, within its timeout")
    void deliveryTimeout() {
        InsyncClient c = client(Map.of("request.timeout.ms", 200, "delivery.timeout.ms", 500));
        ProduceFailedException e = failure(c.send(new TopicPartition("nope", 0), null, "v".getBytes()));
        assertThat(e.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        assertThat(e.written()).isEqualTo(Written.NO);
        assertThat(service.calls()).noneMatch(x -> x instanceof ProduceCall);
    }

    @Test
    @DisplayName("PRO-5 a retry still unanswered at delivery.timeout.ms fails then (fate unknown), before its own request timeout, and its late answer changes nothing")
    void deliveryTimeoutInFlight() throws Exception {
        CompletableFuture<RecordMetadata> f = client(Map.of("request.timeout.ms", 1_000, "delivery.timeout.ms", 1_500))
                .send(TP, null, "v".getBytes());
        answer(produceCall(0), ProduceResult.failed(Errors.NOT_LEADER_OR_FOLLOWER));
        ProduceCall retry = produceCall(1); // not answered in time
        ProduceFailedException e = failure(f);
        assertThat(e.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        assertThat(e.written()).isEqualTo(Written.UNKNOWN);
        assertThat(e.getMessage()).contains("in flight at delivery.timeout.ms");
        answer(retry, ProduceResult.failed(Errors.NOT_LEADER_OR_FOLLOWER));
        // The late retriable answer does not bring the batch back: the next produce carries a new record.
        CompletableFuture<RecordMetadata> next = client.send(TP, null, "w".getBytes());
        ProduceCall call = produceCall(2);
        assertThat(call.entries().get(TP).batches().get(0).records().get(0).value())
                .isEqualTo(java.nio.ByteBuffer.wrap("w".getBytes()));
        answer(call, new ProduceResult(Errors.NONE, 0L, -1L, 0));
        assertThat(next.get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isZero();
    }

    @Test
    @DisplayName("createTopic without bootstrap.controllers on a broker that does not forward it: a clear error naming the way out")
    void createTopicNeedsAController() {
        assertThatThrownBy(() -> client(Map.of()).createTopic("x", 1, 1, Map.of()).get(WAIT_MS, TimeUnit.MILLISECONDS))
                .hasCauseInstanceOf(UnsupportedOperationException.class).hasMessageContaining("bootstrap.controllers");
    }
}
