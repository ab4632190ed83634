package dev.insync.replication.broker;

import dev.insync.replication.controller.state.BrokerEntry;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.server.LogDirFailureListener;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.CleanShutdownFile;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatchBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static dev.insync.replication.broker.TinyCluster.await;
import static dev.insync.replication.broker.TinyCluster.join;
import static org.assertj.core.api.Assertions.assertThat;

/** InsyncBrokers on real threads and real log directories, around a real controller, in one JVM. */
class InsyncBrokerTest {

    private static final TopicPartition REP0 = new TopicPartition("rep", 0);
    private static final TopicPartition REP1 = new TopicPartition("rep", 1);

    @TempDir
    Path root;
    private TinyCluster cluster;

    @BeforeEach
    void controller() {
        cluster = new TinyCluster(root);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static MemoryRecords record(String value) {
        return new RecordBatchBuilder(0).append(System.currentTimeMillis(), null, value.getBytes(StandardCharsets.UTF_8)).build();
    }

    private static ProduceResult produce(InsyncBroker leader, TopicPartition tp, String value, int acks) {
        Map<TopicPartition, ProduceResult> results = join(leader.requestHandlers()
                .produce(Map.of(tp, record(value)), acks, 10_000).toCompletableFuture(), "a produce answer");
        return results.get(tp);
    }

    @Test
    @DisplayName("LDR-4 CTL-5 two InsyncBrokers start, register, are unfenced, serve once loaded, lead and replicate acks=all")
    void startRegisterLeadReplicate() {
        InsyncBroker b1 = cluster.start(cluster.builder(cluster.properties(1, 1)));
        InsyncBroker b2 = cluster.start(cluster.builder(cluster.properties(2, 1)));
        assertThat(b1.state()).isEqualTo(InsyncBroker.State.SERVING);
        assertThat(b1.metadataFollower().isLoaded()).as("it serves only once its initial load is applied").isTrue();
        assertThat(b1.lifecycle().brokerEpoch()).isEqualTo(cluster.brokerEntry(1).orElseThrow().brokerEpoch());
        assertThat(cluster.served).containsOnlyKeys(1, 2);

        cluster.createTopic("rep", List.of(List.of(1, 2)), 2);
        await(() -> b1.replicaManager().partition(REP0).map(p -> p.isLeader()).orElse(false), "broker 1 leading rep-0");
        ProduceResult ok = produce(b1, REP0, "v0", -1);
        assertThat(ok.error()).isEqualTo(Errors.NONE);
        assertThat(ok.baseOffset()).isZero();
        await(() -> b2.log(REP0).map(l -> l.logEndOffset() == 1 && l.highWatermark() == 1).orElse(false),
                "the record and the HW on broker 2");

        // The metadata view is the whole cluster as this broker applied it, for Metadata answers.
        BrokerMetadataView view = b2.metadataView();
        await(() -> view.partition(REP0).map(p -> p.isr().equals(List.of(1, 2))).orElse(false), "the ISR in broker 2's view");
        assertThat(view.topicNames()).containsExactly("rep");
        assertThat(view.partitions("rep")).extracting(PartitionRegistration::leader).containsExactly(1);
        assertThat(view.brokers()).extracting(b -> b.brokerId()).containsExactly(1, 2);
        assertThat(view.minInsyncReplicas("rep")).hasValue(2);
        assertThat(view.activeController()).hasValue(0);
        assertThat(view.offset()).isEqualTo(b2.metadataFollower().appliedOffset());
        assertThat(view.partitions("nope")).isEmpty();
    }

    @Test
    @DisplayName("PRO-1 the handlers parse the wire's acks: anything but 0, 1, -1 is INVALID_REQUIRED_ACKS and appends nothing")
    void invalidAcks() {
        InsyncBroker b1 = cluster.start(cluster.builder(cluster.properties(1, 1)));
        cluster.createTopic("rep", List.of(List.of(1)), 1);
        await(() -> b1.replicaManager().partition(REP0).map(p -> p.isLeader()).orElse(false), "broker 1 leading");
        assertThat(produce(b1, REP0, "bad", 2).error()).isEqualTo(Errors.INVALID_REQUIRED_ACKS);
        assertThat(b1.log(REP0).orElseThrow().logEndOffset()).isZero();
        assertThat(produce(b1, REP0, "good", 1).error()).isEqualTo(Errors.NONE);
    }

    @Test
    @DisplayName("LDR-4 LDR-5 controlled shutdown moves leadership away and leaves .kafka_cleanshutdown; the restart reads it and registers clean, a close without it unclean")
    void controlledShutdownAndRestart() throws IOException {
        Map<String, Object> props1 = cluster.properties(1, 1);
        InsyncBroker b1 = cluster.start(cluster.builder(props1));
        cluster.start(cluster.builder(cluster.properties(2, 1)));
        cluster.createTopic("rep", List.of(List.of(1, 2)), 1);
        await(() -> b1.replicaManager().partition(REP0).map(p -> p.isLeader()).orElse(false), "broker 1 leading");
        long epoch = b1.lifecycle().brokerEpoch();

        join(b1.controlledShutdown(), "the controlled shutdown");
        assertThat(b1.state()).isEqualTo(InsyncBroker.State.STOPPED);
        assertThat(cluster.partition(REP0).leader()).as("leadership moved before it stopped").isEqualTo(2);
        assertThat(cluster.served).as("it no longer serves").doesNotContainKey(1);
        Path marker = Path.of(props1.get("log.dirs").toString()).resolve(CleanShutdownFile.FILE_NAME);
        assertThat(Files.readString(marker)).contains("\"brokerEpoch\":" + epoch);

        InsyncBroker again = cluster.start(cluster.builder(props1));
        assertThat(again.previousCleanShutdownEpoch()).isEqualTo(epoch);
        BrokerEntry clean = cluster.brokerEntry(1).orElseThrow();
        assertThat(clean.previousBrokerEpoch()).isEqualTo(epoch);
        assertThat(clean.uncleanRestart()).isFalse();
        assertThat(Files.exists(marker)).as("the marker is consumed at start").isFalse();

        again.close();
        assertThat(Files.exists(marker)).as("close() leaves no marker").isFalse();
        InsyncBroker third = cluster.start(cluster.builder(props1));
        assertThat(third.previousCleanShutdownEpoch()).isEqualTo(-1);
        assertThat(cluster.brokerEntry(1).orElseThrow().uncleanRestart()).isTrue();
        third.halt();
        assertThat(third.state()).isEqualTo(InsyncBroker.State.STOPPED);
        assertThat(Files.exists(marker)).as("halt() leaves no marker").isFalse();
    }

    @Test
    @DisplayName("§9 a failed log directory: its replicas answer KAFKA_STORAGE_ERROR, are reported offline at once, lose leadership; the other directory serves")
    void logDirFailureReported() {
        Map<String, Object> props = cluster.properties(1, 2);
        Path failing = Path.of(props.get("log.dirs").toString().split(",")[1]);
        boolean[] broken = new boolean[1];
        List<Path> offlineDirs = new CopyOnWriteArrayList<>();
        InsyncBroker b1 = cluster.start(cluster.builder(props)
                .fileSync(dir -> dir.equals(failing)
                        ? FileSync.withoutFsync().withFaults(op -> {
                            if (broken[0]) {
                                throw new IOException("disk gone under " + dir);
                            }
                        })
                        : FileSync.withoutFsync())
                .logDirFailureListener(new LogDirFailureListener() {
                    @Override
                    public void onLogDirOffline(Path dir, Set<TopicPartition> partitions) {
                        offlineDirs.add(dir);
                    }
                }));
        cluster.start(cluster.builder(cluster.properties(2, 1)));
        cluster.createTopic("rep", List.of(List.of(1, 2), List.of(1, 2)), 1);
        await(() -> b1.replicaManager().partition(REP1).map(p -> p.isLeader()).orElse(false), "broker 1 leading rep-1");
        assertThat(b1.replicaManager().logDirectoryOf(REP1).orElseThrow().path()).isEqualTo(failing);

        broken[0] = true;
        assertThat(produce(b1, REP1, "lost", 1).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        await(() -> cluster.brokerEntry(1).map(b -> b.offlineReplicas().contains(REP1)).orElse(false),
                "rep-1 reported offline to the controller");
        await(() -> cluster.partition(REP1).leader() == 2, "leadership of rep-1 moved to broker 2");
        assertThat(cluster.partition(REP0).leader()).as("the healthy directory keeps its leadership").isEqualTo(1);
        assertThat(produce(b1, REP0, "kept", -1).error()).isEqualTo(Errors.NONE);
        assertThat(offlineDirs).containsExactly(failing);
        assertThat(b1.state()).isEqualTo(InsyncBroker.State.SERVING);
    }

    @Test
    @DisplayName("a request server that refuses the handlers fails the start; the broker stops and releases its directories")
    void serverRefusal() {
        InsyncBroker broker = cluster.builder(cluster.properties(1, 1))
                .requestServer(handlers -> {
                    throw new IllegalStateException("port in use");
                })
                .build();
        CompletableFuture<Void> serving = broker.start();
        await(serving::isDone, "the start's outcome");
        assertThat(serving).isCompletedExceptionally();
        join(broker.stopped(), "the stop");
        assertThat(broker.state()).isEqualTo(InsyncBroker.State.FAILED);
        assertThat(broker.replicaManager().isShutDown()).isTrue();
        // The directory is free again: a new broker opens it.
        InsyncBroker next = cluster.start(cluster.builder(cluster.properties(1, 1)));
        assertThat(next.state()).isEqualTo(InsyncBroker.State.SERVING);
    }
}
