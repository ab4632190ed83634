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

package dev.insync.replication.server.suite;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.cluster.ProduceOutcome;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * What {@link ReplicationSuite}'s scenarios need of a cluster of three brokers and a controller, so
 * that one scenario text runs on two very different clusters: {@link InMemoryReplicationCluster}
 * (the testkit's {@code InMemoryCluster}: in-memory network, simulated time) and
 * {@link NettyReplicationCluster} ({@code InsyncServer}s over loopback TCP, a Ratis controller,
 * real time).
 *
 * <p>Actions (topics, produce, consume, describe, faults) go through the cluster's own network:
 * the in-memory one, or Netty. Observations of one broker's state ({@link #partitionOn},
 * {@link #logOn}) read the broker's live objects in this JVM, which both clusters have.
 *
 * <p>Time: {@link #nowMs()} is the cluster's clock (virtual or real), and every wait is bounded in
 * that clock ({@link #awaitCondition}, {@link #await}).
 */
interface ReplicationCluster extends AutoCloseable {

    /** The settings a scenario asks for; everything else is the cluster's (small) defaults. */
    record Settings(long replicaLagTimeMaxMs, long sessionTimeoutMs) {

        /** Short times, so that a real-time run of a shrink or an election takes a few seconds. */
        static final Settings FAST = new Settings(1_000, 4_000);

        Settings withLagTimeMaxMs(long ms) {
            return new Settings(ms, sessionTimeoutMs);
        }
    }

    /** Brokers 1, 2, 3. */
    List<Integer> brokerIds();

    // ------------------------------------------------------------------------- admin (controller)

    /**
     * Creates a one-partition topic with replicas in this order (the first is the preferred leader)
     * and these topic configs ({@code min.insync.replicas}, {@code unclean.leader.election.enable}),
     * and waits until its leader acts as leader.
     */
    void createTopic(String topic, List<Integer> replicas, Map<String, String> configs);

    /** Changes {@code min.insync.replicas} of a topic at the controller (no restart); returns once committed. */
    void setMinInsyncReplicas(String topic, int minInsyncReplicas);

    /** The controller's registration of the partition: leader, leader and partition epochs, ISR, ELR. */
    PartitionRegistration describe(TopicPartition tp);

    // -------------------------------------------------------------------------------- clients

    /**
     * Sends one record (UTF-8 value, no key) to the partition's leader as the controller names it
     * now. No retries: ends exactly once (PRO-5), with the broker's answer or a client-side timeout.
     * acks=0 completes once sent, with offset -1.
     */
    CompletableFuture<ProduceOutcome> produce(TopicPartition tp, String value, int acks, long timeoutMs);

    /**
     * Reads as a consumer (FET-1: below the HW only) from the partition's current leader, from
     * {@code fromOffset} until a fetch returns nothing.
     *
     * @throws AssertionError if the leader answers with an error
     */
    List<String> consume(TopicPartition tp, long fromOffset);

    // ---------------------------------------------------------------------------- observations

    /** Broker {@code brokerId}'s partition object for {@code tp}, while it runs and hosts it. */
    Optional<Partition> partitionOn(int brokerId, TopicPartition tp);

    /** Broker {@code brokerId}'s log of {@code tp}, while it runs and has one. */
    Optional<Log> logOn(int brokerId, TopicPartition tp);

    /** Long-poll fetches parked in broker {@code brokerId}'s fetch purgatory (FET-5); 0 while it is down. */
    int parkedFetches(int brokerId);

    /** Broker {@code brokerId}'s (first) log directory; it outlives the broker. */
    Path logDir(int brokerId);

    // ---------------------------------------------------------------------------------- faults

    /**
     * SIGSTOP: the broker answers nothing and sends nothing (fetches, heartbeats), its connections
     * stay open. In memory its tasks and timers are held; over TCP every link to and from it is
     * frozen by a proxy, while its own threads go on (one JVM cannot stop one server's threads).
     */
    void pause(int brokerId);

    /** SIGCONT: what was held is delivered, late. */
    void resume(int brokerId);

    /**
     * Cuts the links between broker {@code brokerId} and every other broker (fetches); the controller
     * still hears it. In memory the messages are lost (a fetcher gives up after
     * {@code replica.fetch.wait.max.ms + request.timeout.ms}); over TCP the links are frozen and what
     * they held is delivered on {@link #healFetches}.
     */
    void cutFetches(int brokerId);

    /** Undoes {@link #cutFetches}. */
    void healFetches(int brokerId);

    /**
     * A network partition around broker {@code brokerId}: no link to or from it carries anything
     * (other brokers, the controller, the suite's client), while the broker itself runs on (its
     * timers fire, its requests go nowhere). In memory the messages are lost; over TCP every link is
     * frozen, as a blackholed TCP link holds its bytes in retransmission (so over TCP this is what
     * {@link #pause} does), and what was held is delivered on {@link #rejoin}.
     */
    void isolate(int brokerId);

    /** Ends {@link #isolate}. */
    void rejoin(int brokerId);

    /** kill -9: the broker's state is gone, its files stay. */
    void halt(int brokerId);

    /** A stopped broker starts again over its directories (a new broker epoch). Returns once it serves. */
    void restart(int brokerId);

    /** Controlled shutdown (LDR-4); returns once stopped, with whether it stopped cleanly. */
    boolean controlledShutdown(int brokerId);

    /**
     * kill -9 of the (only) controller: its metadata log stays. Brokers go on serving what they
     * have; {@link #produce} and {@link #consume} use the leaders the cluster last knew, and
     * {@link #describe} must not be called until {@link #restartController}.
     */
    void haltController();

    /** A new controller incarnation over the same metadata log (CTL-1, CTL-3). Returns once it answers. */
    void restartController();

    // ------------------------------------------------------------------------------------ time

    /** The cluster's clock in ms (virtual when simulated). */
    long nowMs();

    /** Lets {@code ms} of the cluster's time pass (to observe that something does not happen). */
    void runFor(long ms);

    /**
     * Waits until {@code condition} holds, at most {@code boundMs} of the cluster's time.
     *
     * @throws AssertionError naming {@code what} if it does not hold in time
     */
    void awaitCondition(String what, long boundMs, BooleanSupplier condition);

    /** Waits for {@code future}, at most {@code boundMs} of the cluster's time. @throws AssertionError if not done */
    <T> T await(CompletableFuture<T> future, long boundMs);

    /** Stops everything. */
    @Override
    void close();
}
