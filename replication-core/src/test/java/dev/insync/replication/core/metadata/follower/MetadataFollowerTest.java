package dev.insync.replication.core.metadata.follower;

import dev.insync.replication.core.alter.ManualScheduler;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** CTL-5 on a real ReplicaManager, a fake metadata channel and manual time. */
class MetadataFollowerTest {

    private static final int BROKER = 3;
    private static final TopicPartition A = new TopicPartition("a", 0);
    private static final TopicPartition B = new TopicPartition("b", 0);
    private static final MetadataFollower.Settings SETTINGS = new MetadataFollower.Settings(500, 100, 2_000, 1_000);

    @TempDir
    Path dir;

    private final ManualScheduler scheduler = new ManualScheduler(0);
    private final FakeChannel channel = new FakeChannel();
    private ReplicaManager replicaManager;
    private MetadataFollower follower;

    /** Holds every fetch until the test answers it. */
    private static final class FakeChannel implements MetadataChannel {
        final List<MetadataFetchRequest> requests = new ArrayList<>();
        final List<CompletableFuture<MetadataFetchResponse>> answers = new ArrayList<>();

        @Override
        public CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request) {
            requests.add(request);
            CompletableFuture<MetadataFetchResponse> answer = new CompletableFuture<>();
            answers.add(answer);
            return answer;
        }

        MetadataFetchRequest last() {
            return requests.get(requests.size() - 1);
        }

        void answer(MetadataDelta... deltas) {
            answers.get(answers.size() - 1).complete(new MetadataFetchResponse(last().afterOffset(), Optional.empty(), List.of(deltas)));
        }
    }

    @BeforeEach
    void broker() {
        ReplicationConfig config = ReplicationConfig.defaults();
        LogDirectory logDirectory = LogDirectory.open(dir, config.logConfig(), scheduler::milliseconds);
        ReplicaTransport transport = (leaderId, request) -> CompletableFuture.failedFuture(new IOException("no network"));
        // The follower never talks to the controller channel; whatever its methods, they fail.
        ControllerChannel controller = (ControllerChannel) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ControllerChannel.class},
                (proxy, method, args) -> CompletableFuture.failedFuture(new IOException("no controller")));
        replicaManager = ReplicaManager.builder(BROKER).config(config).logDirectory(logDirectory).scheduler(scheduler)
                .transport(transport).controller(controller).brokerEpoch(() -> 7L)
                .metrics(new InMemoryReplicationMetrics()).build();
        replicaManager.startup();
        follower = new MetadataFollower(replicaManager, channel, scheduler, SETTINGS);
    }

    @AfterEach
    void stop() {
        follower.close();
        replicaManager.shutdown();
    }

    private static PartitionRegistration partition(TopicPartition tp, int leader, int leaderEpoch, int partitionEpoch) {
        return new PartitionRegistration(tp, List.of(1, 3), List.of(1, 3), List.of(), List.of(), leader, leaderEpoch,
                partitionEpoch, false);
    }

    private static MetadataDelta delta(long offset, PartitionRegistration... partitions) {
        return new MetadataDelta(offset, List.of(), List.of(partitions), List.of(), Map.of());
    }

    private static MetadataDelta registration(long offset) {
        return new MetadataDelta(offset, List.of(new BrokerRegistration(BROKER, offset, true, false)), List.of(), List.of(), Map.of());
    }

    /** Started with a known epoch and loaded up to {@code offset} with A and B hosted. */
    private void loaded(long epoch) {
        follower.start(CompletableFuture.completedFuture(epoch));
        scheduler.runReady();
        channel.answer(registration(epoch), delta(epoch + 1, partition(A, 1, 0, 0), partition(B, 1, 0, 0)));
        scheduler.runReady();
        assertThat(follower.isLoaded()).isTrue();
        assertThat(replicaManager.hostedPartitions()).containsExactlyInAnyOrder(A, B);
    }

    @Test
    @DisplayName("CTL-5 LDR-4 the replayed history is applied once, as the image at the broker's own registration: an old leadership never reaches the broker")
    void initialLoadMerge() {
        CompletableFuture<Long> registered = new CompletableFuture<>();
        follower.start(registered);
        scheduler.runReady();
        assertThat(channel.last().afterOffset()).isEqualTo(-1);
        // History: broker 3 led epoch 0 once; broker 1 leads epoch 1 now.
        channel.answer(delta(0, partition(A, 3, 0, 0)), delta(5, partition(A, 1, 1, 1)));
        scheduler.runReady();
        assertThat(channel.last().afterOffset()).as("keeps fetching meanwhile").isEqualTo(5);
        channel.answer(registration(7));
        scheduler.runReady();
        assertThat(replicaManager.lastAppliedMetadataOffset()).as("nothing before the registration answer").isEqualTo(-1);
        assertThat(follower.appliedOffset()).isEqualTo(-1);

        registered.complete(7L);
        scheduler.runReady();
        assertThat(replicaManager.lastAppliedMetadataOffset()).isEqualTo(7);
        assertThat(follower.appliedOffset()).isEqualTo(7);
        Partition a = replicaManager.partition(A).orElseThrow();
        assertThat(a.isLeader()).isFalse();
        assertThat(a.leaderEpoch()).isEqualTo(1);
        assertThat(a.localLog().latestEpoch()).as("epoch 0 was never written into the epoch cache").isEmpty();

        // Once loaded, deltas pass straight through.
        channel.answer(delta(8, partition(A, 3, 2, 2)));
        scheduler.runReady();
        assertThat(replicaManager.partition(A).orElseThrow().isLeader()).isTrue();
        assertThat(replicaManager.lastAppliedMetadataOffset()).isEqualTo(8);
    }

    @Test
    @DisplayName("CTL-5 deltas are applied in offset order, once; an answer to anything but the current request is dropped")
    void orderedExactlyOnce() {
        loaded(0);
        assertThat(channel.last().afterOffset()).isEqualTo(1);
        // An answer for an old offset (a duplicate in flight) is dropped and the fetch sent again.
        channel.answers.get(channel.answers.size() - 1).complete(new MetadataFetchResponse(0, Optional.empty(),
                List.of(delta(1, partition(A, 3, 5, 5)))));
        scheduler.runReady();
        assertThat(replicaManager.partition(A).orElseThrow().leaderEpoch()).isZero();
        int sent = channel.requests.size();
        scheduler.advance(100);
        assertThat(channel.requests).as("sent again after the backoff").hasSize(sent + 1);
        assertThat(channel.last().afterOffset()).isEqualTo(1);
        channel.answer(delta(4, partition(A, 1, 0, 1)));
        scheduler.runReady();
        assertThat(replicaManager.lastAppliedMetadataOffset()).isEqualTo(4);
        assertThat(channel.last().afterOffset()).isEqualTo(4);
        assertThat(channel.requests).extracting(MetadataFetchRequest::maxWaitMs).containsOnly(500L);
    }

    @Test
    @DisplayName("CTL-5 an image is a full replace: partitions the broker knew that the image lacks are removed from it")
    void imageReplaces() {
        loaded(0);
        MetadataImage image = new MetadataImage(10, List.of(new BrokerRegistration(BROKER, 0, false, false)),
                List.of(partition(A, 1, 1, 3)), Map.of("a", 2));
        channel.answers.get(channel.answers.size() - 1).complete(
                new MetadataFetchResponse(1, Optional.of(image), List.of(delta(11, partition(A, 1, 1, 4)))));
        scheduler.runReady();
        assertThat(replicaManager.hostedPartitions()).containsExactly(A);
        assertThat(replicaManager.partition(A).orElseThrow().leaderEpoch()).isEqualTo(1);
        assertThat(replicaManager.lastAppliedMetadataOffset()).isEqualTo(11);
        assertThat(channel.last().afterOffset()).isEqualTo(11);
    }

    @Test
    @DisplayName("CTL-5 an image during the initial load becomes the base of the merge")
    void imageDuringInitialLoad() {
        follower.start(CompletableFuture.completedFuture(20L));
        scheduler.runReady();
        MetadataImage image = new MetadataImage(15, List.of(), List.of(partition(A, 3, 4, 4), partition(B, 1, 0, 0)), Map.of());
        channel.answers.get(0).complete(new MetadataFetchResponse(-1, Optional.of(image), List.of(registration(20))));
        scheduler.runReady();
        assertThat(replicaManager.lastAppliedMetadataOffset()).isEqualTo(20);
        assertThat(replicaManager.hostedPartitions()).containsExactlyInAnyOrder(A, B);
        assertThat(replicaManager.partition(A).orElseThrow().isLeader()).isTrue();
    }

    @Test
    @DisplayName("CTL-5 a failed fetch is retried after the backoff; an unanswered one is abandoned after maxWait + timeout and its late answer dropped")
    void retries() {
        follower.start(CompletableFuture.completedFuture(0L));
        scheduler.runReady();
        channel.answers.get(0).completeExceptionally(new IOException("link down"));
        scheduler.advance(99);
        assertThat(channel.requests).hasSize(1);
        scheduler.advance(1);
        assertThat(channel.requests).hasSize(2);
        scheduler.advance(2_499);
        assertThat(channel.requests).hasSize(2);
        scheduler.advance(1);
        assertThat(channel.requests).hasSize(3);
        channel.answers.get(1).complete(new MetadataFetchResponse(-1, Optional.empty(), List.of(registration(0))));
        scheduler.runReady();
        assertThat(replicaManager.lastAppliedMetadataOffset()).as("the abandoned request's answer").isEqualTo(-1);
        channel.answer(registration(0));
        scheduler.runReady();
        assertThat(replicaManager.lastAppliedMetadataOffset()).isZero();
    }

    @Test
    @DisplayName("the follower is the replica manager's only metadata source: it refuses one that applied metadata, and a second start")
    void cannotBeWiredWrong() {
        follower.start(CompletableFuture.completedFuture(0L));
        assertThatThrownBy(() -> follower.start(CompletableFuture.completedFuture(0L))).isInstanceOf(IllegalStateException.class);
        replicaManager.applyMetadataDelta(registration(0));
        MetadataFollower second = new MetadataFollower(replicaManager, channel, scheduler, SETTINGS);
        assertThatThrownBy(() -> second.start(CompletableFuture.completedFuture(0L)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("only source");
    }

    @Test
    @DisplayName("CTL-5 the image of what was applied: every broker and partition, deletions and image replaces included; the initial load completes once applied")
    void appliedImage() {
        CompletableFuture<Long> registered = new CompletableFuture<>();
        follower.start(registered);
        CompletableFuture<Long> initialLoad = follower.initialLoad().toCompletableFuture();
        scheduler.runReady();
        channel.answer(delta(0, partition(A, 3, 0, 0)), registration(1));
        scheduler.runReady();
        assertThat(follower.image().offset()).as("nothing applied before the initial load").isEqualTo(-1);
        assertThat(initialLoad).isNotDone();

        registered.complete(1L);
        scheduler.runReady();
        assertThat(initialLoad).isCompletedWithValue(1L);
        MetadataImage loaded = follower.image();
        assertThat(loaded.offset()).isEqualTo(1);
        assertThat(loaded.brokers()).extracting(BrokerRegistration::brokerId).containsExactly(BROKER);
        assertThat(loaded.partitions()).containsExactly(partition(A, 3, 0, 0));

        channel.answer(new MetadataDelta(2, List.of(), List.of(partition(B, 1, 0, 0)), List.of(A), Map.of("b", 2)));
        scheduler.runReady();
        MetadataImage later = follower.image();
        assertThat(later.offset()).isEqualTo(2);
        assertThat(later.partitions()).containsExactly(partition(B, 1, 0, 0));
        assertThat(later.minInsyncReplicasByTopic()).containsEntry("b", 2);
        assertThat(follower.image()).as("unchanged: the same copy").isSameAs(later);

        MetadataImage replacing = new MetadataImage(9, List.of(), List.of(partition(A, 1, 1, 1)), Map.of());
        channel.answers.get(channel.answers.size() - 1).complete(new MetadataFetchResponse(2, Optional.of(replacing), List.of()));
        scheduler.runReady();
        assertThat(follower.image().partitions()).containsExactly(partition(A, 1, 1, 1));
        assertThat(follower.image().offset()).isEqualTo(9);
    }

    @Test
    @DisplayName("a follower closed before its initial load fails the initial-load future")
    void closedBeforeLoad() {
        follower.start(new CompletableFuture<>());
        follower.close();
        assertThat(follower.initialLoad().toCompletableFuture()).isCompletedExceptionally();
    }
}
