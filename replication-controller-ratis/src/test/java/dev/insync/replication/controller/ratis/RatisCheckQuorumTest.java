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

package dev.insync.replication.controller.ratis;

import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * CTL-4 check quorum on the live node: the active controller of a 3-node quorum loses both other
 * voters but keeps its brokers. It must resign (Ratis steps a leader down once no majority has
 * answered it within the election timeout; Kafka's KRaft leader within 1.5 ×
 * {@code controller.quorum.fetch.timeout.ms}) and answer heartbeats {@code NOT_CONTROLLER}. A leader
 * that went on answering them from memory would keep its brokers away from the next active
 * controller, which would fence them all for want of heartbeats.
 */
class RatisCheckQuorumTest {

    @TempDir
    Path dir;

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("CTL-4 check quorum: an active controller left without a majority resigns within a few "
            + "controller.quorum.election.timeout.ms and answers heartbeats NOT_CONTROLLER")
    void ctl4LeaderWithoutMajorityResigns() throws Exception {
        Map<String, Object> props = Map.of("controller.quorum.election.timeout.ms", 500,
                "broker.session.timeout.ms", 9000, "broker.heartbeat.interval.ms", 500);
        try (RatisQuorum quorum = new RatisQuorum(dir, 3, props).startAll()) {
            RatisControllerNode leader = quorum.awaitActive(30_000);
            long epoch = await(leader.controllerApi().registerBroker(new RegisterBrokerRequest(1, -1, List.of())))
                    .brokerEpoch();
            HeartbeatRequest heartbeat = new HeartbeatRequest(1, epoch, 0, false);
            HeartbeatResponse answered = await(leader.controllerApi().brokerHeartbeat(heartbeat));
            assertThat(answered.error()).isEqualTo(Errors.NONE);

            for (int id = 1; id <= 3; id++) {
                if (id != leader.nodeId()) {
                    quorum.kill(id);
                }
            }
            // Eight election timeouts: well below broker.session.timeout.ms, the bound that matters.
            RatisQuorum.awaitCondition(4_000, () -> !leader.isActive(),
                    "node " + leader.nodeId() + " to resign without a majority");

            assertThatThrownBy(() -> await(leader.controllerApi().brokerHeartbeat(heartbeat)))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOfSatisfying(ApiException.class,
                            e -> assertThat(e.error()).isEqualTo(Errors.NOT_CONTROLLER));
        }
    }
}
