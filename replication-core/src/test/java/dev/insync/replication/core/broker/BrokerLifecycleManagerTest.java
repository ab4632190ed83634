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

package dev.insync.replication.core.broker;

import dev.insync.replication.core.alter.FakeControllerChannel;
import dev.insync.replication.core.alter.ManualScheduler;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BrokerLifecycleManagerTest {

    private static final long HEARTBEAT_MS = 2_000;
    private static final long BACKOFF_MS = 100;

    private final ManualScheduler scheduler = new ManualScheduler(0);
    private final FakeControllerChannel channel = new FakeControllerChannel();
    private final AtomicLong metadataOffset = new AtomicLong(10);

    private BrokerLifecycleManager manager(long previousEpoch) {
        return BrokerLifecycleManager.builder(3, channel, scheduler).previousBrokerEpoch(previousEpoch)
                .executor(scheduler.newSerialExecutor("BrokerLifecycle-3")).heartbeatIntervalMs(HEARTBEAT_MS)
                .registrationRetryBackoffMs(BACKOFF_MS).metadataOffset(metadataOffset::get).build();
    }

    private static HeartbeatResponse answer(boolean fenced, boolean shouldShutDown) {
        return new HeartbeatResponse(Errors.NONE, fenced, shouldShutDown);
    }

    @Test
    @DisplayName("LDR-4 every registration, retried ones too, carries the broker's advertised endpoints")
    void registrationCarriesEndpoints() {
        List<Endpoint> advertised = List.of(new Endpoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 41001));
        BrokerLifecycleManager m = BrokerLifecycleManager.builder(3, channel, scheduler)
                .executor(scheduler.newSerialExecutor("BrokerLifecycle-3")).heartbeatIntervalMs(HEARTBEAT_MS)
                .registrationRetryBackoffMs(BACKOFF_MS).endpoints(advertised).build();
        m.start();
        scheduler.runReady();
        assertThat(channel.lastRegister().endpoints()).isEqualTo(advertised);
        channel.lastRegister().response().completeExceptionally(new IOException("controller unreachable (test)"));
        scheduler.runReady();
        scheduler.advance(BACKOFF_MS);
        assertThat(channel.registerCalls).hasSize(2);
        assertThat(channel.lastRegister().endpoints()).isEqualTo(advertised);
        assertThatThrownBy(() -> BrokerLifecycleManager.builder(3, channel, scheduler).endpoints(List.of(
                new Endpoint("PLAINTEXT", "PLAINTEXT", "a", 1), new Endpoint("PLAINTEXT", "PLAINTEXT", "b", 2))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
    }

    @Test
    @DisplayName("LDR-5 registration sends the clean-shutdown epoch as previousBrokerEpoch, or -1 after an unclean stop")
    void registrationCarriesPreviousEpoch() {
        BrokerLifecycleManager clean = manager(41);
        clean.start();
        scheduler.runReady();
        assertThat(channel.lastRegister().brokerId()).isEqualTo(3);
        assertThat(channel.lastRegister().previousBrokerEpoch()).isEqualTo(41);

        BrokerLifecycleManager unclean = manager(-1);
        unclean.start();
        scheduler.runReady();
        assertThat(channel.lastRegister().previousBrokerEpoch()).isEqualTo(-1);
    }

    @Test
    @DisplayName("LDR-4 registration is retried with backoff until it succeeds, then the broker epoch is known")
    void registrationRetriedUntilSuccess() {
        BrokerLifecycleManager m = manager(-1);
        CompletableFuture<Long> registered = m.start();
        scheduler.runReady();
        assertThat(m.brokerEpoch()).isEqualTo(BrokerLifecycleManager.NO_EPOCH);
        channel.lastRegister().response().completeExceptionally(new IOException("controller unreachable (test)"));
        scheduler.runReady();
        assertThat(channel.registerCalls).hasSize(1);
        scheduler.advance(BACKOFF_MS - 1);
        assertThat(channel.registerCalls).hasSize(1);
        scheduler.advance(1);
        assertThat(channel.registerCalls).hasSize(2);

        // Unanswered: abandoned after one heartbeat interval, then retried.
        scheduler.advance(HEARTBEAT_MS);
        assertThat(channel.registerCalls).hasSize(3);
        channel.registerCalls.get(1).response().complete(99L); // late answer to an abandoned attempt: ignored
        scheduler.runReady();
        assertThat(registered).isNotDone();

        channel.lastRegister().response().complete(5L);
        scheduler.runReady();
        assertThat(registered).isCompletedWithValue(5L);
        assertThat(m.brokerEpoch()).isEqualTo(5);
        assertThat(m.isFenced()).as("a new incarnation is fenced until a heartbeat says otherwise").isTrue();
        assertThat(m.state()).isEqualTo(BrokerLifecycleManager.State.RUNNING);
    }

    @Test
    @DisplayName("§9 every heartbeat lists the offline replicas; reportOfflineReplicas sends one at once, or right after the one in flight")
    void heartbeatsCarryOfflineReplicas() {
        List<TopicPartition> offline = new CopyOnWriteArrayList<>();
        BrokerLifecycleManager m = BrokerLifecycleManager.builder(3, channel, scheduler)
                .executor(scheduler.newSerialExecutor("BrokerLifecycle-3")).heartbeatIntervalMs(HEARTBEAT_MS)
                .registrationRetryBackoffMs(BACKOFF_MS).metadataOffset(metadataOffset::get)
                .offlineReplicas(() -> List.copyOf(offline)).build();
        m.start();
        scheduler.runReady();
        channel.lastRegister().response().complete(5L);
        scheduler.runReady();
        assertThat(channel.lastHeartbeat().offlineReplicas()).isEmpty();
        channel.lastHeartbeat().response().complete(answer(false, false));
        scheduler.runReady();

        offline.add(new TopicPartition("rep", 0));
        m.reportOfflineReplicas();
        scheduler.runReady();
        assertThat(channel.heartbeatCalls).as("at once, not at the next tick").hasSize(2);
        assertThat(channel.lastHeartbeat().offlineReplicas()).containsExactly(new TopicPartition("rep", 0));

        offline.add(new TopicPartition("rep", 1));
        m.reportOfflineReplicas(); // one is in flight: the next goes out when it is answered
        scheduler.runReady();
        assertThat(channel.heartbeatCalls).hasSize(2);
        channel.lastHeartbeat().response().complete(answer(false, false));
        scheduler.runReady();
        assertThat(channel.heartbeatCalls).hasSize(3);
        assertThat(channel.lastHeartbeat().offlineReplicas())
                .containsExactly(new TopicPartition("rep", 0), new TopicPartition("rep", 1));
    }

    @Test
    @DisplayName("LDR-4 caughtUpWithMetadata sends a heartbeat with the new metadata offset at once, so the broker is unfenced without waiting a tick")
    void caughtUpHeartbeatsAtOnce() {
        BrokerLifecycleManager m = manager(-1);
        m.start();
        scheduler.runReady();
        channel.lastRegister().response().complete(5L);
        scheduler.runReady();
        metadataOffset.set(4);
        channel.lastHeartbeat().response().complete(answer(true, false));
        scheduler.runReady();
        assertThat(m.isFenced()).isTrue();

        metadataOffset.set(5);
        m.caughtUpWithMetadata();
        scheduler.runReady();
        assertThat(channel.heartbeatCalls).as("at once, not at the next tick").hasSize(2);
        assertThat(channel.lastHeartbeat().metadataOffset()).isEqualTo(5);
        channel.lastHeartbeat().response().complete(answer(false, false));
        scheduler.runReady();
        assertThat(m.isFenced()).isFalse();
    }

    @Test
    @DisplayName("LDR-4 heartbeats go out every broker.heartbeat.interval.ms with the metadata offset and unfence")
    void heartbeatsEveryInterval() {
        BrokerLifecycleManager m = manager(-1);
        m.start();
        scheduler.runReady();
        channel.lastRegister().response().complete(5L);
        scheduler.runReady();
        assertThat(channel.heartbeatCalls).hasSize(1);
        FakeControllerChannel.HeartbeatCall first = channel.lastHeartbeat();
        assertThat(first.brokerId()).isEqualTo(3);
        assertThat(first.brokerEpoch()).isEqualTo(5);
        assertThat(first.metadataOffset()).isEqualTo(10);
        assertThat(first.wantShutDown()).isFalse();
        first.response().complete(answer(true, false));
        scheduler.runReady();
        assertThat(m.isFenced()).isTrue();

        metadataOffset.set(25);
        scheduler.advance(HEARTBEAT_MS - 1);
        assertThat(channel.heartbeatCalls).hasSize(1);
        scheduler.advance(1);
        assertThat(channel.heartbeatCalls).hasSize(2);
        assertThat(channel.lastHeartbeat().metadataOffset()).isEqualTo(25);
        channel.lastHeartbeat().response().complete(answer(false, false));
        scheduler.runReady();
        assertThat(m.isFenced()).isFalse();

        scheduler.advance(HEARTBEAT_MS * 3);
        assertThat(channel.heartbeatCalls).hasSize(5);
    }

    @Test
    @DisplayName("LDR-4 a lost heartbeat does not stop heartbeating and its late answer is ignored")
    void lostHeartbeatDoesNotStopHeartbeats() {
        BrokerLifecycleManager m = manager(-1);
        m.start();
        scheduler.runReady();
        channel.lastRegister().response().complete(5L);
        scheduler.runReady();
        FakeControllerChannel.HeartbeatCall lost = channel.lastHeartbeat();
        scheduler.advance(HEARTBEAT_MS);
        assertThat(channel.heartbeatCalls).hasSize(2);
        channel.lastHeartbeat().response().complete(answer(false, false));
        scheduler.runReady();
        assertThat(m.isFenced()).isFalse();
        lost.response().complete(answer(true, false)); // stale answer must not re-fence
        scheduler.runReady();
        assertThat(m.isFenced()).isFalse();
    }

    @Test
    @DisplayName("LDR-4 STALE_BROKER_EPOCH on a heartbeat re-registers and the broker epoch changes")
    void staleBrokerEpochReRegisters() {
        BrokerLifecycleManager m = manager(-1);
        m.start();
        scheduler.runReady();
        channel.lastRegister().response().complete(5L);
        scheduler.runReady();
        channel.lastHeartbeat().response().complete(new HeartbeatResponse(Errors.STALE_BROKER_EPOCH, true, false));
        scheduler.runReady();
        assertThat(channel.registerCalls).hasSize(2);
        assertThat(channel.lastRegister().previousBrokerEpoch()).isEqualTo(5);
        assertThat(m.state()).isEqualTo(BrokerLifecycleManager.State.REGISTERING);
        channel.lastRegister().response().complete(8L);
        scheduler.runReady();
        assertThat(m.brokerEpoch()).isEqualTo(8);
        assertThat(channel.lastHeartbeat().brokerEpoch()).isEqualTo(8);
        // The old periodic heartbeat timer is gone: exactly one heartbeat per interval.
        int before = channel.heartbeatCalls.size();
        scheduler.advance(HEARTBEAT_MS);
        assertThat(channel.heartbeatCalls).hasSize(before + 1);
    }

    @Test
    @DisplayName("LDR-4 controlled shutdown completes when a heartbeat answers shouldShutDown, then heartbeats stop")
    void controlledShutdown() {
        BrokerLifecycleManager m = manager(-1);
        m.start();
        scheduler.runReady();
        channel.lastRegister().response().complete(5L);
        scheduler.runReady();
        channel.lastHeartbeat().response().complete(answer(false, false));
        scheduler.runReady();

        CompletableFuture<Void> done = m.beginControlledShutdown();
        assertThat(m.beginControlledShutdown()).isSameAs(done);
        scheduler.runReady();
        assertThat(channel.heartbeatCalls).as("asks at once").hasSize(2);
        assertThat(channel.lastHeartbeat().wantShutDown()).isTrue();
        channel.lastHeartbeat().response().complete(answer(false, false));
        scheduler.runReady();
        assertThat(done).isNotDone();

        scheduler.advance(HEARTBEAT_MS);
        assertThat(channel.lastHeartbeat().wantShutDown()).isTrue();
        channel.lastHeartbeat().response().complete(answer(true, true));
        scheduler.runReady();
        assertThat(done).isCompleted().isNotCompletedExceptionally();
        assertThat(m.state()).isEqualTo(BrokerLifecycleManager.State.SHUT_DOWN);
        int sent = channel.heartbeatCalls.size();
        scheduler.advance(HEARTBEAT_MS * 5);
        assertThat(channel.heartbeatCalls).hasSize(sent);
        assertThat(scheduler.pendingTimers()).isZero();
    }

    @Test
    void closeStopsEverythingAndFailsAWaitingShutdown() {
        BrokerLifecycleManager m = manager(-1);
        m.start();
        scheduler.runReady();
        channel.lastRegister().response().complete(5L);
        scheduler.runReady();
        CompletableFuture<Void> done = m.beginControlledShutdown();
        scheduler.runReady();
        m.close();
        m.close();
        int sent = channel.heartbeatCalls.size();
        scheduler.advance(HEARTBEAT_MS * 5);
        assertThat(channel.heartbeatCalls).hasSize(sent);
        assertThat(done).isCompletedExceptionally();
        assertThat(m.isFenced()).isTrue();
        assertThat(m.state()).isEqualTo(BrokerLifecycleManager.State.CLOSED);
    }

    @Test
    void controlledShutdownOfANeverRegisteredBrokerCompletesAtOnce() {
        BrokerLifecycleManager m = manager(-1);
        assertThat(m.beginControlledShutdown()).isCompleted();
        assertThatThrownBy(() -> BrokerLifecycleManager.builder(3, channel, scheduler).heartbeatIntervalMs(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("broker 3");
        assertThatThrownBy(() -> BrokerLifecycleManager.builder(3, channel, scheduler).registrationRetryBackoffMs(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("broker 3");
    }
}
