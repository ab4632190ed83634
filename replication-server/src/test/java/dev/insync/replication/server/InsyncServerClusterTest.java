package dev.insync.replication.server;

import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.CleanShutdownFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A controller quorum (1 or 3 Ratis nodes) and three brokers over loopback TCP, in one JVM, each an
 * {@link InsyncServer} built from the properties a process would read: exactly the classes
 * {@code insync broker --config} runs.
 */
class InsyncServerClusterTest {

    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final long WAIT_MS = 30_000;

    @TempDir
    Path root;

    private final Map<Integer, InsyncServer> servers = new TreeMap<>();
    private ServerTestClient client;

    @AfterEach
    void closeAll() {
        if (client != null) {
            client.close();
        }
        servers.values().forEach(InsyncServer::close);
    }

    private InsyncServer start(Map<String, String> props) throws Exception {
        InsyncServer s = InsyncServer.builder(props).fileSync(dir -> FileSync.withoutFsync()).build();
        servers.put(s.nodeId(), s);
        s.start();
        return s;
    }

    @ParameterizedTest(name = "{0} controller node(s)")
    @ValueSource(ints = {1, 3})
    @DisplayName("LDR-4, CTL-3, ISR-8, PRO-3, NET-3, INV-1 over TCP: RF 3 min ISR 2, acks=all replicated to an ISR of 3; the"
            + " leader's controlled shutdown moves leadership and leaves the clean-shutdown marker; after a restart a"
            + " halted leader is fenced, another elected, every acknowledged record is there")
    void brokersAndControllersOverLoopback(int controllers) throws Exception {
        ClusterLayout layout = new ClusterLayout(root, controllers, 3);
        for (int id : layout.controllerIds()) {
            start(layout.controller(id));
        }
        for (int id : layout.brokerIds()) {
            start(layout.broker(id));
        }
        for (InsyncServer s : servers.values()) {
            s.ready().get(WAIT_MS, TimeUnit.MILLISECONDS);
            assertThat(s.readinessLine()).startsWith("insync: ready node.id=" + s.nodeId() + " roles=");
        }
        client = new ServerTestClient();
        client.createTopic(layout.controllerListeners(), CreateTopicRequest.withAssignment(TP.topic(),
                List.of(List.of(1, 2, 3)), Map.of("min.insync.replicas", "2")));
        int leader = awaitLeader(layout, 2, Set.of(1, 2, 3));
        assertThat(leader).isEqualTo(1); // ISR-8: the first replica in assignment order

        List<String> acknowledged = new ArrayList<>();
        produceAll(layout, leader, "a", 10, acknowledged);
        // The followers fetch over TCP: every log reaches the leader's LEO and the ISR is all three.
        long leo = servers.get(leader).broker().orElseThrow().log(TP).orElseThrow().logEndOffset();
        assertThat(leo).isEqualTo(10);
        ServerTestClient.await("every replica at LEO " + leo + " and ISR [1, 2, 3]", WAIT_MS, () ->
                layout.brokerIds().stream().allMatch(id -> leo(id) == leo)
                        && client.partition(layout.brokerListener(2), TP).map(p -> Set.copyOf(p.isr()).equals(Set.of(1, 2, 3)))
                        .orElse(false));

        // NET-3: on plaintext the leader sent the followers' records from its segment files.
        assertThat(servers.get(leader).serverMetrics().fileRegionsWritten()).isPositive();

        // LDR-4: the leader's controlled shutdown moves leadership away, then it stops clean.
        assertThat(servers.get(leader).controlledShutdown()).isTrue();
        assertThat(Files.exists(layout.brokerLogDir(leader).resolve(CleanShutdownFile.FILE_NAME))).isTrue();
        int second = awaitLeader(layout, 3, Set.of(2, 3));
        produceAll(layout, second, "b", 5, acknowledged);

        // The stopped broker comes back over its directories (a clean restart) and rejoins the ISR (ISR-2).
        start(layout.broker(leader)).ready().get(WAIT_MS, TimeUnit.MILLISECONDS);
        ServerTestClient.await("ISR [1, 2, 3] again", WAIT_MS, () -> client.partition(layout.brokerListener(second), TP)
                .map(p -> Set.copyOf(p.isr()).equals(Set.of(1, 2, 3))).orElse(false));

        // CTL-3 / ISR-8: the new leader halts (kill -9 in one JVM); after the session timeout it is fenced and
        // another ISR member leads.
        servers.get(second).halt();
        int asked = second == 2 ? 3 : 2;
        ServerTestClient.await("broker " + second + " fenced as broker " + asked + " sees it", WAIT_MS, () ->
                servers.get(asked).broker().orElseThrow().metadataView().broker(second)
                        .map(b -> b.fenced()).orElse(false));
        int third = awaitLeader(layout, asked, Set.of(1, 2, 3));
        assertThat(third).isNotEqualTo(second);
        produceAll(layout, third, "c", 3, acknowledged);
        // INV-1: every record acknowledged with NONE is readable from the new leader, in order.
        assertThat(client.consumeAll(layout.brokerListener(third), TP)).containsExactlyElementsOf(acknowledged);
    }

    private long leo(int id) {
        InsyncServer s = servers.get(id);
        return s.broker().flatMap(b -> {
            try {
                return b.log(TP).map(l -> l.logEndOffset());
            } catch (IllegalStateException e) {
                return java.util.Optional.empty();
            }
        }).orElse(-1L);
    }

    /** Waits until broker {@code askId}'s Metadata names a leader in {@code candidates}; returns it. */
    private int awaitLeader(ClusterLayout layout, int askId, Set<Integer> candidates) {
        int[] leader = {-1};
        Set<Integer> live = new java.util.HashSet<>(candidates);
        live.removeIf(id -> servers.get(id).stopped().isDone());
        ServerTestClient.await("a leader among " + candidates + " known to broker " + askId, WAIT_MS, () -> {
            leader[0] = client.partition(layout.brokerListener(askId), TP).map(PartitionRegistration::leader).orElse(-1);
            return live.contains(leader[0]) && servers.get(leader[0]).broker().orElseThrow()
                    .replicaManager().partition(TP).map(p -> p.isLeader()).orElse(false);
        });
        return leader[0];
    }

    private void produceAll(ClusterLayout layout, int leader, String prefix, int n, List<String> acknowledged)
            throws Exception {
        for (int i = 0; i < n; i++) {
            String value = prefix + "-" + i;
            ProduceResult r = client.produce(layout.brokerListener(leader), TP, -1, List.of(value));
            assertThat(r.error()).as("acks=all produce of %s to broker %d", value, leader).isEqualTo(Errors.NONE);
            acknowledged.add(value);
        }
    }
}
