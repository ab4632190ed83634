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

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.core.time.Time;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.netty.ManualScheduler;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sender under load, against one real server on loopback whose produces the test answers by
 * hand: sends do not queue one sender task each (so an answer is handled at once however many sends
 * wait), every record of many partitions completes in order, and close keeps to its bound with a
 * backlog. Those on a {@link ManualScheduler} run the client one sender task at a time; the others
 * run it on real threads, where the sender is the client's event loop.
 */
class InsyncClientSenderTest {

    private static final long WAIT_MS = 20_000;
    private static final String TOPIC = "t";
    private static final int PARTITIONS = 12;

    private final ThreadScheduler serverScheduler = new ThreadScheduler();
    private final RecordingReplicaService service = new RecordingReplicaService();
    private final NettyServer server;
    private final InetSocketAddress address;
    private InsyncClient client;
    private ManualScheduler manual;

    InsyncClientSenderTest() {
        List<PartitionRegistration> partitions = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> PartitionRegistration.builder(tp(p)).replicas(1).isr(1).leader(1).build()).toList();
        MetadataView[] view = new MetadataView[1];
        server = NettyServer.builder().name("scripted").bindAddress(new InetSocketAddress("127.0.0.1", 0))
                .config(NetworkConfig.builder().numNetworkThreads(1).numIoThreads(2).build()).scheduler(serverScheduler)
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
                    public java.util.Collection<String> topicNames() {
                        return view[0].topicNames();
                    }

                    @Override
                    public List<PartitionRegistration> partitions(String topic) {
                        return view[0].partitions(topic);
                    }
                }).build())
                .build();
        address = server.start();
        view[0] = MetadataView.of(List.of(new BrokerEndpoint(1, "127.0.0.1", address.getPort())), -1, partitions);
    }

    private static TopicPartition tp(int p) {
        return new TopicPartition(TOPIC, p);
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (client != null && manual != null) {
            // On manual time the sender runs only when the test runs its tasks: close from another thread.
            Thread closer = new Thread(() -> client.close(Duration.ZERO), "closer");
            closer.start();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (closer.isAlive() && System.nanoTime() < deadline) {
                manual.runOneDue();
                closer.join(1);
            }
        } else if (client != null) {
            client.close();
        }
        server.close();
        serverScheduler.close();
    }

    private Map<String, Object> props(Map<String, Object> extra) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", "127.0.0.1:" + address.getPort(),
                "linger.ms", 0, "max.in.flight.requests.per.connection", 1));
        props.putAll(extra);
        return props;
    }

    private ProduceCall produceCall(int index) throws InterruptedException {
        return (ProduceCall) service.awaitCalls(index + 1, WAIT_MS).get(index);
    }

    /** Runs the client's due sender tasks once at least one is due (bounded wait). */
    private void runDueTasks() throws InterruptedException {
        manual.awaitDue(1, WAIT_MS);
        while (manual.runOneDue()) {
            // one task after the other, until none is due
        }
    }

    /** How many of {@code futures} failed with each {@link Written}; every one must fail, within the wait. */
    private static Map<Written, Integer> failuresByFate(List<CompletableFuture<RecordMetadata>> futures) throws Exception {
        Map<Written, Integer> byFate = new HashMap<>();
        for (CompletableFuture<RecordMetadata> f : futures) {
            Throwable t = f.handle((r, e) -> e).get(WAIT_MS, TimeUnit.MILLISECONDS);
            assertThat(t).isInstanceOf(ProduceFailedException.class);
            byFate.merge(((ProduceFailedException) t).written(), 1, Integer::sum);
        }
        return byFate;
    }

    /** Answers every partition of {@code call} with the next offsets of that partition. */
    private static void answerInOrder(ProduceCall call, Map<TopicPartition, Long> nextOffsets) {
        Map<TopicPartition, ProduceResult> answer = new LinkedHashMap<>();
        call.entries().forEach((tp, records) -> {
            List<RecordBatch> batches = records.batches();
            assertThat(batches).as("one batch per partition per request").hasSize(1);
            long base = nextOffsets.getOrDefault(tp, 0L);
            nextOffsets.put(tp, base + batches.get(0).lastOffsetDelta() + 1);
            answer.put(tp, new ProduceResult(Errors.NONE, base, -1L, 0));
        });
        call.answer().complete(answer);
    }

    @Test
    @DisplayName("PRO-5 with thousands of sends waiting, they take one sender task and a produce answer the next, so its record completes after two tasks; then every record of 12 partitions completes, in send order per partition")
    void answersDoNotWaitBehindSends() throws Exception {
        manual = new ManualScheduler(1_000_000L);
        client = InsyncClient.builder(props(Map.of())).scheduler(manual).build();
        Map<TopicPartition, Long> nextOffsets = new HashMap<>();

        CompletableFuture<RecordMetadata> first = client.send(tp(0), null, new byte[100]);
        manual.awaitDue(1, WAIT_MS);
        assertThat(manual.runOneDue()).as("the append, which asks for metadata").isTrue();
        manual.awaitDue(1, WAIT_MS);
        assertThat(manual.runOneDue()).as("the metadata answer: the record goes out, alone in flight").isTrue();
        ProduceCall firstCall = produceCall(0);

        int sends = 6_000;
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        List<TopicPartition> partitionOf = new ArrayList<>();
        for (int i = 0; i < sends; i++) {
            partitionOf.add(tp(i % PARTITIONS));
            futures.add(client.send(partitionOf.get(i), null, new byte[100]));
        }
        assertThat(manual.dueCount()).as("one sender task for all %d sends", sends).isEqualTo(1);

        answerInOrder(firstCall, nextOffsets);
        manual.awaitDue(2, WAIT_MS);
        assertThat(manual.dueCount()).as("the sends' task and the answer's").isEqualTo(2);
        assertThat(manual.runOneDue()).isTrue();
        assertThat(manual.runOneDue()).isTrue();
        assertThat(first).isCompletedWithValue(new RecordMetadata(tp(0), 0L, 0));

        // The backlog: ~5 batches of 16 KiB per partition, one request (one batch per partition) at a time.
        for (int call = 1; !futures.stream().allMatch(CompletableFuture::isDone); call++) {
            assertThat(call).as("produce requests").isLessThan(100);
            answerInOrder(produceCall(call), nextOffsets);
            runDueTasks();
        }
        Map<TopicPartition, Long> expected = new HashMap<>(Map.of(tp(0), 1L));
        for (int i = 0; i < sends; i++) {
            TopicPartition tp = partitionOf.get(i);
            long offset = expected.getOrDefault(tp, 0L);
            assertThat(futures.get(i).get().offset()).as("record %d of %s", i, tp).isEqualTo(offset);
            expected.put(tp, offset + 1);
        }
    }

    @Test
    @DisplayName("PRO-5 close(500 ms) with 100,000 batches of one partition waiting and one produce unanswered returns within its bound, fails every record once (in flight UNKNOWN, the rest NO) and schedules no timer once closed")
    void closeKeepsItsBoundWithABacklog() throws Exception {
        RecordingScheduler scheduler = new RecordingScheduler();
        // batch.size 1: every record is a batch of its own, the most batches a backlog can have.
        client = InsyncClient.builder(props(Map.of("batch.size", 1))).scheduler(scheduler).build();
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        futures.add(client.send(tp(0), null, new byte[100]));
        produceCall(0); // one batch of one record, never answered
        int sends = 100_000;
        for (int i = 0; i < sends; i++) {
            futures.add(client.send(tp(0), null, new byte[100]));
        }

        long timeoutMs = 500;
        long start = System.nanoTime();
        client.close(Duration.ofMillis(timeoutMs));
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        scheduler.close(); // as an owned scheduler closes right after the client
        client = null;

        assertThat(elapsedMs).as("close(%d ms) took", timeoutMs)
                .isLessThan(timeoutMs + InsyncClient.CLOSE_GRACE_MS + 2_000);
        Map<Written, Integer> byFate = failuresByFate(futures);
        assertThat(byFate).containsEntry(Written.UNKNOWN, 1).containsEntry(Written.NO, sends);
        assertThat(scheduler.scheduledAfterClose).isEmpty();
    }

    @Test
    @DisplayName("PRO-5 send appends in the caller's thread: a record joining a waiting batch hands the sender no task; at linger.ms both records go in one batch and complete in send order")
    void pro5JoiningAWaitingBatchCostsTheSenderNothing() throws Exception {
        manual = new ManualScheduler(1_000_000L);
        client = InsyncClient.builder(props(Map.of("linger.ms", 10_000))).scheduler(manual).build();
        CompletableFuture<RecordMetadata> first = client.send(tp(0), null, new byte[100]);
        assertThat(manual.dueCount()).as("the new batch wakes the sender").isEqualTo(1);
        assertThat(manual.runOneDue()).as("it asks for metadata").isTrue();
        manual.awaitDue(1, WAIT_MS);
        assertThat(manual.runOneDue()).as("the metadata answer: the batch lingers").isTrue();
        assertThat(manual.dueCount()).isZero();

        CompletableFuture<RecordMetadata> second = client.send(tp(0), null, new byte[100]);
        assertThat(manual.dueCount()).as("sender tasks after a send that joined the waiting batch").isZero();

        manual.advance(10_000); // linger.ms: the batch goes out
        ProduceCall call = produceCall(0);
        assertThat(call.entries().get(tp(0)).batches().get(0).lastOffsetDelta()).as("both records, one batch")
                .isEqualTo(1);
        answerInOrder(call, new HashMap<>());
        runDueTasks();
        assertThat(first.get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isZero();
        assertThat(second.get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isEqualTo(1);
    }

    /** Live threads of this JVM whose name is {@code name}. */
    private static List<Thread> threadsNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).toList();
    }

    @Test
    @DisplayName("PRO-5 NET-2 on real threads the produce answer is handled on the event loop that read it: the record's future completes on that Netty loop, the sender's thread, and the client has no sender thread of its own")
    void pro5AnswerIsHandledOnTheEventLoopThatReadIt() throws Exception {
        client = InsyncClient.builder(props(Map.of("client.id", "loop-client"))).build();
        assertThat(client.senderOnEventLoop()).isTrue();
        CompletableFuture<RecordMetadata> sent = client.send(tp(0), null, new byte[100]);
        // Registered before the test answers, so it runs on the thread that completes the future.
        CompletableFuture<Thread> completedOn = sent.thenApply(md -> Thread.currentThread());
        ProduceCall call = produceCall(0);
        Thread senderThread = client.senderThread().get(WAIT_MS, TimeUnit.MILLISECONDS);

        answerInOrder(call, new HashMap<>());
        // Waited for first: a thread waiting in sent.get() may itself run sent's dependents (CompletableFuture).
        Thread t = completedOn.get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(sent.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(new RecordMetadata(tp(0), 0L, 0));
        assertThat(t).as("the thread that completed the record").isSameAs(senderThread)
                .isInstanceOf(io.netty.util.concurrent.FastThreadLocalThread.class);
        assertThat(t.getName()).startsWith("loop-client-");
        assertThat(threadsNamed("loop-client-sender")).as("a sender thread").isEmpty();
    }

    /** One record's outcome as a {@link SendCallback} saw it. */
    private record Outcome(int record, RecordMetadata metadata, ProduceFailedException exception, Thread thread) {
    }

    /** Sends {@code count} records of 100 bytes round-robin over {@code partitions} partitions with callbacks into {@code outcomes}. */
    private void sendWithCallbacks(int count, int partitions, List<Outcome> outcomes) {
        for (int i = 0; i < count; i++) {
            int record = i;
            client.send(tp(i % partitions), null, new byte[100], List.of(),
                    (metadata, exception) -> outcomes.add(new Outcome(record, metadata, exception, Thread.currentThread())));
        }
    }

    /** Answers each produce in offset order as it comes, until {@code done} completes (bounded wait). */
    private void answerUntil(CompletableFuture<?> done) throws Exception {
        Map<TopicPartition, Long> nextOffsets = new HashMap<>();
        int answered = 0;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!done.isDone() && System.nanoTime() < deadline) {
            if (service.callCount() > answered) {
                answerInOrder(produceCall(answered++), nextOffsets);
            } else {
                Thread.onSpinWait();
            }
        }
        done.get(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    @Test
    @DisplayName("PRO-5 send with a callback: every record is reported exactly once, on the event loop, with its offset in send order per partition, and flush completes only after every callback ran")
    void pro5CallbackSendsReportEachRecordOnceInOrder() throws Exception {
        client = InsyncClient.builder(props(Map.of("client.id", "callback-client"))).build();
        Thread loop = client.senderThread().get(WAIT_MS, TimeUnit.MILLISECONDS);
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        int records = 300;
        sendWithCallbacks(records, 3, outcomes);
        answerUntil(client.flush());

        assertThat(outcomes).as("outcomes when flush completed").hasSize(records);
        assertThat(outcomes).extracting(Outcome::exception).containsOnlyNulls();
        assertThat(outcomes).extracting(Outcome::thread).containsOnly(loop);
        assertThat(outcomes.stream().map(Outcome::record).distinct().count()).as("records reported").isEqualTo(records);
        for (Outcome o : outcomes) {
            // Round-robin over 3 partitions: record i is the (i / 3)-th of its partition.
            assertThat(o.metadata()).as("record %d", o.record()).isEqualTo(new RecordMetadata(tp(o.record() % 3), o.record() / 3, 0));
        }
    }

    @Test
    @DisplayName("PRO-5 a send callback that throws is logged and keeps no other record of its batch from its outcome")
    void pro5ThrowingCallbackKeepsTheOthers() throws Exception {
        client = InsyncClient.builder(props(Map.of())).build();
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        client.send(tp(0), null, new byte[100], List.of(), (metadata, exception) -> {
            throw new IllegalStateException("a careless callback");
        });
        sendWithCallbacks(20, 1, outcomes);
        answerUntil(client.flush());
        assertThat(outcomes).hasSize(20);
        assertThat(outcomes).extracting(o -> o.metadata().offset()).containsExactlyElementsOf(
                IntStream.rangeClosed(1, 20).mapToObj(Long::valueOf).toList());
    }

    @Test
    @DisplayName("PRO-5 a callback record whose request times out fails once, written UNKNOWN; the records behind it fail once, not written, at delivery.timeout.ms; close reports none of them again")
    void pro5CallbackRecordsFailOnceWhenTheirRequestTimesOut() throws Exception {
        client = InsyncClient.builder(props(Map.of("request.timeout.ms", 1_000, "delivery.timeout.ms", 1_500)))
                .build();
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        sendWithCallbacks(1, 1, outcomes);
        produceCall(0); // never answered: the request times out (1 s) before the records' delivery timeout
        sendWithCallbacks(5, 1, outcomes);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (outcomes.size() < 6 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(outcomes).as("outcomes by the delivery timeout").hasSize(6);
        client.close();
        client = null;

        assertThat(outcomes).as("outcomes after close").hasSize(6);
        assertThat(outcomes).extracting(Outcome::metadata).containsOnlyNulls();
        Map<Written, Long> byFate = outcomes.stream().collect(java.util.stream.Collectors.groupingBy(
                o -> o.exception().written(), java.util.stream.Collectors.counting()));
        assertThat(byFate).as("the record in flight UNKNOWN, the rest NO").isEqualTo(Map.of(Written.UNKNOWN, 1L, Written.NO, 5L));
        assertThat(outcomes.stream().map(o -> o.exception().error()).distinct()).containsExactly(Errors.REQUEST_TIMED_OUT);
    }

    @Test
    @DisplayName("PRO-5 a record failed in flight at delivery.timeout.ms is not reported again when its request fails after the sender stopped (the caller's scheduler closed first)")
    void pro5RecordFailedInFlightIsNotReportedAgainOnceTheSenderStopped() throws Exception {
        ThreadScheduler callers = new ThreadScheduler();
        // The sender on the caller's scheduler; a refusal sends the record again 1 s later, so the retry's request
        // deadline (2 s after it) falls 1 s after the record's delivery deadline: the delivery timeout fails it in flight.
        client = InsyncClient.builder(props(Map.of("insync.network.inline.handlers", "false", "retry.backoff.ms", 1_000,
                "retry.backoff.max.ms", 1_000, "request.timeout.ms", 2_000, "delivery.timeout.ms", 2_000)))
                .scheduler(callers).build();
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        sendWithCallbacks(1, 1, outcomes);
        produceCall(0).answer().complete(Map.of(tp(0), new ProduceResult(Errors.NOT_ENOUGH_REPLICAS, -1L, -1L, 0)));
        produceCall(1); // the retry, never answered
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (outcomes.isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(outcomes).as("the outcome by the delivery timeout").hasSize(1);
        assertThat(outcomes.get(0).exception().getMessage()).contains("in flight at delivery.timeout.ms");
        assertThat(outcomes.get(0).exception().written()).isEqualTo(Written.UNKNOWN);

        callers.close(); // from now on the sender refuses tasks: the request's failure is handled where it happens
        client.close(); // fails the retry's request, which is still in flight
        client = null;

        assertThat(outcomes).as("outcomes after close").hasSize(1);
    }

    @Test
    @DisplayName("NET-2 insync.network.inline.handlers=false puts the sender on a thread of its own, where the answer is handled; the property is strict")
    void net2InlineHandlersOffKeepsASenderThread() throws Exception {
        assertThatThrownBy(() -> InsyncClient.builder(props(Map.of("insync.network.inline.handlers", "yes"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("insync.network.inline.handlers");
        client = InsyncClient.builder(props(Map.of("client.id", "thread-client",
                "insync.network.inline.handlers", "false"))).build();
        assertThat(client.senderOnEventLoop()).isFalse();
        CompletableFuture<RecordMetadata> sent = client.send(tp(0), null, new byte[100]);
        CompletableFuture<Thread> completedOn = sent.thenApply(md -> Thread.currentThread());
        answerInOrder(produceCall(0), new HashMap<>());
        assertThat(completedOn.get(WAIT_MS, TimeUnit.MILLISECONDS).getName()).isEqualTo("thread-client-sender");
    }

    @Test
    @DisplayName("PRO-5 on the event loop close(500 ms) with 20,000 batches waiting and one produce unanswered returns within its bound, fails every record exactly once (in flight UNKNOWN, the rest NO) and stops the loop")
    void pro5CloseOnTheEventLoopKeepsItsBound() throws Exception {
        client = InsyncClient.builder(props(Map.of("batch.size", 1))).build();
        Thread loop = client.senderThread().get(WAIT_MS, TimeUnit.MILLISECONDS);
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        futures.add(client.send(tp(0), null, new byte[100]));
        produceCall(0); // never answered
        int sends = 20_000;
        for (int i = 0; i < sends; i++) {
            futures.add(client.send(tp(i % PARTITIONS), null, new byte[100]));
        }
        java.util.concurrent.atomic.AtomicInteger outcomes = new java.util.concurrent.atomic.AtomicInteger();
        futures.forEach(f -> f.whenComplete((r, e) -> outcomes.incrementAndGet()));

        long timeoutMs = 500;
        long start = System.nanoTime();
        client.close(Duration.ofMillis(timeoutMs));
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        client = null;

        assertThat(elapsedMs).as("close(%d ms) took", timeoutMs)
                .isLessThan(timeoutMs + InsyncClient.CLOSE_GRACE_MS + 2_000);
        Map<Written, Integer> byFate = failuresByFate(futures);
        // max.in.flight 1: only the first record was ever sent.
        assertThat(byFate).containsEntry(Written.UNKNOWN, 1).containsEntry(Written.NO, sends);
        assertThat(outcomes.get()).as("outcomes, one per record").isEqualTo(sends + 1);
        loop.join(WAIT_MS);
        assertThat(loop.isAlive()).as("the event loop after close").isFalse();
    }

    @Test
    @DisplayName("PRO-5 on the event loop, close() from a send future's callback returns at once and closes as close(0):"
            + " a record still waiting fails exactly once, a later send fails as not written")
    void pro5CloseFromACallbackClosesWithoutWaiting() throws Exception {
        client = InsyncClient.builder(props(Map.of())).build();
        CompletableFuture<RecordMetadata> sent = client.send(tp(0), null, new byte[100]);
        ProduceCall first = produceCall(0);
        // In flight one request per connection: this one waits behind the first (a batch of its own).
        CompletableFuture<RecordMetadata> waiting = client.send(tp(0), null, new byte[100]);
        AtomicInteger waitingOutcomes = new AtomicInteger();
        waiting.whenComplete((r, e) -> waitingOutcomes.incrementAndGet());
        CompletableFuture<Thread> closedFrom = sent.handle((r, e) -> {
            client.close();
            return Thread.currentThread();
        });
        answerInOrder(first, new HashMap<>());
        // close() returned inside the callback, on the event loop, instead of waiting for itself or throwing.
        assertThat(closedFrom.get(WAIT_MS, TimeUnit.MILLISECONDS).getName()).doesNotEndWith("-close");
        assertThatThrownBy(() -> waiting.get(WAIT_MS, TimeUnit.MILLISECONDS)).hasCauseInstanceOf(ProduceFailedException.class);
        CompletableFuture<RecordMetadata> late = client.send(tp(1), null, new byte[100]);
        assertThatThrownBy(() -> late.get(WAIT_MS, TimeUnit.MILLISECONDS)).hasCauseInstanceOf(ProduceFailedException.class)
                .hasMessageContaining("closed");
        assertThat(waitingOutcomes).hasValue(1);
    }

    @Test
    @DisplayName("PRO-5 NET-2 on the event loop four callers' records to three partitions keep each caller's send order per partition (offsets rise in send order) and all complete exactly once")
    void pro5OrderPerPartitionWithSeveralCallers() throws Exception {
        client = InsyncClient.builder(props(Map.of("max.in.flight.requests.per.connection", 5, "linger.ms", 1))).build();
        int callers = 4;
        int perCaller = 600;
        int partitions = 3;
        List<List<CompletableFuture<RecordMetadata>>> byCaller = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < callers; c++) {
            List<CompletableFuture<RecordMetadata>> mine = new ArrayList<>();
            byCaller.add(mine);
            threads.add(new Thread(() -> {
                for (int i = 0; i < perCaller; i++) {
                    mine.add(client.send(tp(i % partitions), null, new byte[10]));
                }
            }, "caller-" + c));
        }
        threads.forEach(Thread::start);
        Map<TopicPartition, Long> nextOffsets = new HashMap<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        int answered = 0;
        while (nextOffsets.values().stream().mapToLong(Long::longValue).sum() < (long) callers * perCaller) {
            assertThat(System.nanoTime()).as("all records answered in time").isLessThan(deadline);
            answerInOrder(produceCall(answered++), nextOffsets);
        }
        for (Thread t : threads) {
            t.join(WAIT_MS);
        }
        for (List<CompletableFuture<RecordMetadata>> mine : byCaller) {
            assertThat(mine).hasSize(perCaller);
            Map<TopicPartition, Long> last = new HashMap<>();
            for (int i = 0; i < perCaller; i++) {
                RecordMetadata md = mine.get(i).get(WAIT_MS, TimeUnit.MILLISECONDS);
                assertThat(md.topicPartition()).isEqualTo(tp(i % partitions));
                Long before = last.put(md.topicPartition(), md.offset());
                if (before != null) {
                    assertThat(md.offset()).as("record %d of its caller on %s", i, md.topicPartition())
                            .isGreaterThan(before);
                }
            }
        }
    }

    @Test
    @DisplayName("PRO-5 NET-2 on the event loop a broker that refuses every request at once (backing off after a failed connect) never re-enters the sender: the record fails exactly once, not written, at delivery.timeout.ms")
    void pro5RequestsRefusedAtOnceFailTheRecordOnce() throws Exception {
        int deadPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            deadPort = s.getLocalPort();
        }
        client = InsyncClient.builder(Map.of("bootstrap.servers", "127.0.0.1:" + deadPort, "linger.ms", 0,
                "reconnect.backoff.ms", 60_000, "reconnect.backoff.max.ms", 60_000, "retry.backoff.ms", 10,
                "request.timeout.ms", 300, "delivery.timeout.ms", 1_500)).build();
        CompletableFuture<RecordMetadata> sent = client.send(tp(0), null, new byte[100]);
        java.util.concurrent.atomic.AtomicInteger outcomes = new java.util.concurrent.atomic.AtomicInteger();
        sent.whenComplete((r, e) -> outcomes.incrementAndGet());
        Throwable t = sent.handle((r, e) -> e).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(t).isInstanceOf(ProduceFailedException.class);
        ProduceFailedException p = (ProduceFailedException) t;
        assertThat(p.written()).isEqualTo(Written.NO);
        assertThat(p.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        // Still working: another send is taken, and the sender answers.
        assertThat(client.producesInFlightAndBatchesWaiting(1).get(WAIT_MS, TimeUnit.MILLISECONDS)).containsExactly(0, 0);
        assertThat(outcomes.get()).isEqualTo(1);
    }

    @Test
    @DisplayName("PRO-5 NET-2 on the event loop, after the broker went away a produce its connection refuses at once (backing off) inside the sender's task is handled once, after that task: the record fails once, not written, at delivery.timeout.ms, and nothing stays counted in flight")
    void pro5ProduceRefusedAtOnceInsideTheSenderIsHandledOnce() throws Exception {
        client = InsyncClient.builder(props(Map.of("reconnect.backoff.ms", 60_000, "reconnect.backoff.max.ms", 60_000,
                "retry.backoff.ms", 10, "request.timeout.ms", 300, "delivery.timeout.ms", 1_500))).build();
        CompletableFuture<RecordMetadata> first = client.send(tp(0), null, new byte[100]);
        answerInOrder(produceCall(0), new HashMap<>());
        assertThat(first.get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isZero();

        server.close();
        // Until the client saw the connection go (a fetch to the leader fails): from then on it backs off.
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (client.fetch(tp(0), 0).get(WAIT_MS, TimeUnit.MILLISECONDS).error() == Errors.NONE) {
            assertThat(System.nanoTime()).as("the client sees the broker gone").isLessThan(deadline);
        }
        CompletableFuture<RecordMetadata> second = client.send(tp(0), null, new byte[100]);
        java.util.concurrent.atomic.AtomicInteger outcomes = new java.util.concurrent.atomic.AtomicInteger();
        second.whenComplete((r, e) -> outcomes.incrementAndGet());
        Throwable t = second.handle((r, e) -> e).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(t).isInstanceOf(ProduceFailedException.class);
        assertThat(((ProduceFailedException) t).written()).isEqualTo(Written.NO);
        assertThat(client.producesInFlightAndBatchesWaiting(1).get(WAIT_MS, TimeUnit.MILLISECONDS))
                .as("produces in flight to broker 1, batches waiting").containsExactly(0, 0);
        assertThat(outcomes.get()).isEqualTo(1);
    }

    /** Bytes of {@code buffer.memory} one record of 100 value bytes, no key and no headers, takes. */
    private static final int RECORD_BYTES = RecordAccumulator.estimateBytes(null, new byte[100], List.of());

    /** Waits (bounded) until {@code n} sends wait for room in the client's {@code buffer.memory}. */
    private void awaitBlockedSends(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (client.sendsWaitingForBufferMemory() < n) {
            assertThat(System.nanoTime()).as("%d sends blocked", n).isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    @Test
    @DisplayName("PRO-5 buffer.memory: with two records' room taken by records waiting for their outcome, a third send blocks until the answer of the first; then every record completes once, in order")
    void pro5SendBlocksWhileBufferMemoryIsTaken() throws Exception {
        client = InsyncClient.builder(props(Map.of("buffer.memory", 2 * RECORD_BYTES + RECORD_BYTES / 2))).build();
        CompletableFuture<RecordMetadata> first = client.send(tp(0), null, new byte[100]);
        ProduceCall firstCall = produceCall(0); // in flight, unanswered
        CompletableFuture<RecordMetadata> second = client.send(tp(0), null, new byte[100]); // waits behind it
        CompletableFuture<CompletableFuture<RecordMetadata>> third = new CompletableFuture<>();
        Thread blocked = new Thread(() -> third.complete(client.send(tp(0), null, new byte[100])), "blocked-sender");
        blocked.start();
        awaitBlockedSends(1);
        assertThat(third).as("the third send, with no room").isNotDone();
        assertThat(second).isNotDone();

        Map<TopicPartition, Long> nextOffsets = new HashMap<>();
        answerInOrder(firstCall, nextOffsets); // the first record's room comes back
        CompletableFuture<RecordMetadata> thirdSent = third.get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(first.get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isZero();
        // The second record went out next; the third with it if it joined its batch in time, else after it.
        ProduceCall secondCall = produceCall(1);
        int recordsInSecondCall = secondCall.entries().get(tp(0)).batches().get(0).lastOffsetDelta() + 1;
        answerInOrder(secondCall, nextOffsets);
        if (recordsInSecondCall == 1) {
            answerInOrder(produceCall(2), nextOffsets);
        }
        assertThat(second.get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isEqualTo(1);
        assertThat(thirdSent.get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isEqualTo(2);
        blocked.join(WAIT_MS);
        assertThat(client.sendsWaitingForBufferMemory()).isZero();
    }

    @Test
    @DisplayName("PRO-5 buffer.memory: with no room, max.block.ms 0 fails the send at once (REQUEST_TIMED_OUT, not written) and sends nothing; a record larger than buffer.memory fails at once (MESSAGE_TOO_LARGE); failed records give their room back")
    void pro5NoRoomFailsWithinMaxBlock() throws Exception {
        client = InsyncClient.builder(props(Map.of("buffer.memory", RECORD_BYTES, "max.block.ms", 0))).build();
        CompletableFuture<RecordMetadata> first = client.send(tp(0), null, new byte[100]);
        ProduceCall firstCall = produceCall(0);

        ProduceFailedException noRoom = failure(client.send(tp(1), null, new byte[100]));
        assertThat(noRoom.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        assertThat(noRoom.written()).isEqualTo(Written.NO);
        assertThat(noRoom).hasMessageContaining("buffer.memory").hasMessageContaining("max.block.ms (0 ms)");
        ProduceFailedException tooLarge = failure(client.send(tp(1), null, new byte[RECORD_BYTES]));
        assertThat(tooLarge.error()).isEqualTo(Errors.MESSAGE_TOO_LARGE);
        assertThat(tooLarge.written()).isEqualTo(Written.NO);

        // The first record fails (the broker refuses it): its room is free again.
        firstCall.answer().complete(Map.of(tp(0), new ProduceResult(Errors.INVALID_RECORD, -1L, -1L, 0)));
        assertThat(failure(first).error()).isEqualTo(Errors.INVALID_RECORD);
        CompletableFuture<RecordMetadata> again = client.send(tp(1), null, new byte[100]);
        answerInOrder(produceCall(1), new HashMap<>());
        assertThat(again.get(WAIT_MS, TimeUnit.MILLISECONDS).offset()).isZero();
        assertThat(service.awaitCalls(2, WAIT_MS)).as("produce requests: nothing of the refused sends").hasSize(2);
    }

    @Test
    @DisplayName("PRO-5 buffer.memory: a batch's room is back before its futures complete, so a callback's send finds it; a second send from that callback on the client's event loop, with no room left, fails at once instead of waiting for the loop it runs on; close ends a blocked send (not written)")
    void pro5NoRoomOnTheEventLoopNeverWaits() throws Exception {
        client = InsyncClient.builder(props(Map.of("buffer.memory", RECORD_BYTES + RECORD_BYTES / 2))).build();
        CompletableFuture<RecordMetadata> first = client.send(tp(0), null, new byte[100]);
        ProduceCall firstCall = produceCall(0);
        // The batch gives its room back before its futures complete: the callback's first send finds it.
        CompletableFuture<CompletableFuture<RecordMetadata>> fromCallback = first.thenApply(md -> {
            client.send(tp(1), null, new byte[100]);
            return client.send(tp(1), null, new byte[100]);
        });
        answerInOrder(firstCall, new HashMap<>());
        answerInOrder(produceCall(1), new HashMap<>());
        ProduceFailedException e = failure(fromCallback.get(WAIT_MS, TimeUnit.MILLISECONDS));
        assertThat(e.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        assertThat(e.written()).isEqualTo(Written.NO);
        assertThat(e).hasMessageContaining("event loop");

        CompletableFuture<RecordMetadata> second = client.send(tp(2), null, new byte[100]);
        produceCall(2); // in flight, unanswered: its room stays taken
        CompletableFuture<CompletableFuture<RecordMetadata>> blocked = new CompletableFuture<>();
        Thread sender = new Thread(() -> blocked.complete(client.send(tp(3), null, new byte[100])), "blocked-sender");
        sender.start();
        awaitBlockedSends(1);
        client.close(Duration.ZERO);
        client = null;
        ProduceFailedException closed = failure(blocked.get(WAIT_MS, TimeUnit.MILLISECONDS));
        assertThat(closed.written()).isEqualTo(Written.NO);
        assertThat(closed).hasMessageContaining("closed");
        assertThat(failure(second).written()).as("the record in flight at close").isEqualTo(Written.UNKNOWN);
        sender.join(WAIT_MS);
    }

    /** The failure of {@code f} (within the wait), which must be a {@link ProduceFailedException}. */
    private static ProduceFailedException failure(CompletableFuture<RecordMetadata> f) throws Exception {
        Throwable t = f.handle((r, e) -> e instanceof java.util.concurrent.CompletionException c ? c.getCause() : e)
                .get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(t).isInstanceOf(ProduceFailedException.class);
        return (ProduceFailedException) t;
    }

    /** A {@link ThreadScheduler} that records every timer asked for after it was closed (and refuses it, as it does). */
    private static final class RecordingScheduler implements Scheduler {
        private final ThreadScheduler delegate = new ThreadScheduler();
        private volatile boolean closed;
        final List<String> scheduledAfterClose = new CopyOnWriteArrayList<>();

        @Override
        public Cancellable schedule(Executor executor, Runnable task, long delayMs) {
            if (closed) {
                scheduledAfterClose.add(task + " in " + delayMs + " ms");
                throw new RejectedExecutionException("Scheduler is closed");
            }
            return delegate.schedule(executor, task, delayMs);
        }

        @Override
        public Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs, long periodMs) {
            if (closed) {
                scheduledAfterClose.add(task + " every " + periodMs + " ms");
                throw new RejectedExecutionException("Scheduler is closed");
            }
            return delegate.schedulePeriodically(executor, task, initialDelayMs, periodMs);
        }

        @Override
        public Executor newSerialExecutor(String name) {
            return delegate.newSerialExecutor(name);
        }

        @Override
        public Time time() {
            return delegate.time();
        }

        void close() {
            closed = true;
            delegate.close(); // waits for the sender's last tasks
        }
    }
}
