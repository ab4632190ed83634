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

import dev.insync.replication.controller.channel.QuorumControllerChannel;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** CTL-4: quorums of 1 and 5 voters; 2f+1 voters tolerate f failures, and not f+1. */
class RatisQuorumSizesTest {

    @TempDir
    Path dir;

    private static final QuorumControllerChannel.Settings CHANNEL = new QuorumControllerChannel.Settings(50, 200, 2_000, 4);

    /** A write through the broker-side channel: a new broker registration; returns its epoch. */
    private static long register(QuorumControllerChannel channel, int brokerId) throws Exception {
        return channel.registerBroker(brokerId, -1).toCompletableFuture().get(15, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("CTL-4 a single-voter quorum starts, serves writes and reads")
    void ctl4SingleVoter() throws Exception {
        try (RatisQuorum quorum = new RatisQuorum(dir, 1, Map.of()).startAll();
             ThreadScheduler scheduler = new ThreadScheduler()) {
            quorum.awaitActive(10_000);
            QuorumControllerChannel channel = new QuorumControllerChannel(QuorumEndpoints.of(quorum), scheduler, CHANNEL);
            assertThat(register(channel, 1)).isEqualTo(0);
            assertThat(register(channel, 2)).isEqualTo(1);
            assertThat(quorum.node(1).controller().committedOffset()).isEqualTo(1);
            channel.close();
            quorum.kill(1);
            // Closing reaps the node's threads: the Raft server's, the controller's, the scheduler's.
            RatisQuorum.awaitCondition(5_000, () -> Thread.getAllStackTraces().keySet().stream()
                    .filter(Thread::isAlive).map(Thread::getName)
                    .noneMatch(n -> n.startsWith("n1@") || n.startsWith("n1-") || n.equals("QuorumController-1")
                            || n.startsWith("controller-1-") || n.startsWith("RatisMetadataLog-1")),
                    "node 1's threads gone: " + Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                            .filter(n -> n.startsWith("n1") || n.contains("-1")).toList());
        }
    }

    @Test
    @DisplayName("CTL-4 five voters: serving with two down; with three down writes fail with a retriable error; they resume after a restart")
    void ctl4FiveVotersToleratesTwoFailures() throws Exception {
        try (RatisQuorum quorum = new RatisQuorum(dir, 5, Map.of()).startAll();
             ThreadScheduler scheduler = new ThreadScheduler()) {
            RatisControllerNode first = quorum.awaitActive(15_000);
            QuorumControllerChannel channel = new QuorumControllerChannel(QuorumEndpoints.of(quorum), scheduler, CHANNEL);
            long e1 = register(channel, 1);

            // Two down, the active one among them: a new active controller, writes go on.
            int other = first.nodeId() == 1 ? 2 : 1;
            quorum.kill(first.nodeId());
            quorum.kill(other);
            quorum.awaitActive(10_000);
            long e2 = register(channel, 2);
            assertThat(e2).isGreaterThan(e1);
            quorum.awaitCommitted(e2, 10_000);

            // Three down: no majority, no active controller; writes fail with NOT_CONTROLLER (retriable).
            List<Integer> alive = List.copyOf(quorum.nodes.keySet());
            quorum.kill(alive.get(0));
            RatisQuorum.awaitCondition(10_000, () -> quorum.active().isEmpty(), "no active controller without a majority");
            try {
                register(channel, 3);
                throw new AssertionError("a write without a majority succeeded");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(ApiException.class);
                assertThat(((ApiException) e.getCause()).error()).isEqualTo(Errors.NOT_CONTROLLER);
                assertThat(((ApiException) e.getCause()).error().isRetriable()).isTrue();
            }
            assertThat(quorum.nodes.values()).allSatisfy(n -> assertThat(n.controller().committedOffset()).isEqualTo(e2));

            // One back (from its directory): a majority again, writes resume, nothing committed was lost.
            quorum.start(alive.get(0));
            quorum.awaitActive(15_000);
            long e3 = register(channel, 3);
            assertThat(e3).isGreaterThan(e2);
            quorum.awaitCommitted(e3, 10_000);
            String dump = RatisQuorum.dump(quorum.active().orElseThrow());
            for (RatisControllerNode n : quorum.nodes.values()) {
                assertThat(RatisQuorum.dump(n)).isEqualTo(dump);
            }
            channel.close();
        }
    }
}
