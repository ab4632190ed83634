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

package dev.insync.replication.bench.peers;

import dev.insync.replication.bench.harness.BenchOptions;
import dev.insync.replication.bench.harness.BenchSuite;
import dev.insync.replication.bench.harness.Measurements;
import dev.insync.replication.bench.harness.PeerBenchmark;
import org.HdrHistogram.Histogram;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.impl.MiniRaftCluster;
import org.apache.ratis.server.simulation.MiniRaftClusterWithSimulatedRpc;
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Apache Ratis 3.2.2 under the same load as Insync: three peers in this JVM, messages of the same
 * size, the same number of requests in flight, a state machine that only counts. Measured twice
 * per fsync setting: over Ratis' simulated in-JVM RPC ({@code ratis.sim}, the closest to Insync's
 * in-memory transport) and over gRPC on loopback ({@code ratis.grpc}). "fsync off" is Ratis'
 * {@code raft.server.log.unsafe-flush.enabled}; "fsync on" is its default.
 */
public final class RatisPeerBenchmark implements PeerBenchmark {

    @Override
    public String name() {
        return "ratis";
    }

    @Override
    public void measure(BenchOptions options, boolean fsync, Path workDir, Measurements out, Consumer<String> progress)
            throws Exception {
        String mode = fsync ? BenchSuite.FSYNC : BenchSuite.NO_FSYNC;
        progress.accept("ratis " + mode + " (simulated RPC)");
        // The simulated client RPC is blocking only: the window is as many threads, each with one send.
        ExecutorService senders = Executors.newFixedThreadPool(options.window(), daemon("ratis-sim-sender"));
        try (Peers peers = simulated(options, fsync, workDir)) {
            RaftClient client = peers.client();
            run(options, fsync, client, message -> CompletableFuture.supplyAsync(() -> sendBlocking(client, message),
                    senders), "peer.ratis." + mode, out);
        } catch (Exception e) {
            // One transport failing (e.g. a drain that never ends) must not cost the other one.
            out.note("peer.ratis." + mode, "Ratis over simulated RPC failed: " + e);
        } finally {
            senders.shutdownNow();
        }
        progress.accept("ratis " + mode + " (gRPC, loopback)");
        try (Peers peers = grpc(options, fsync, workDir)) {
            RaftClient client = peers.client();
            run(options, fsync, client, message -> client.async().send(message), "peer.ratis_grpc." + mode, out);
        } catch (Exception e) {
            out.note("peer.ratis_grpc." + mode, "Ratis over gRPC failed: " + e);
        }
    }

    private static RaftClientReply sendBlocking(RaftClient client, Message message) {
        try {
            return client.io().send(message);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private static void run(BenchOptions options, boolean fsync, RaftClient client,
                            Function<Message, CompletableFuture<RaftClientReply>> sender, String prefix, Measurements out)
            throws Exception {
        Message message = Message.valueOf("x".repeat(options.valueBytes()));
        // First message: waits for the election.
        client.io().send(message);
        Supplier<CompletableFuture<RaftClientReply>> send = () -> sender.apply(message);
        ClosedLoop loop = new ClosedLoop(send, options.window());
        loop.start();
        Thread.sleep(options.warmupMs());
        long c0 = loop.ok.get();
        long t0 = System.nanoTime();
        Thread.sleep(options.measureMs());
        long c1 = loop.ok.get();
        long t1 = System.nanoTime();
        loop.stopAndDrain();
        out.add(prefix + ".records_per_s", (c1 - c0) / ((t1 - t0) / 1e9));
        if (loop.failed.get() > 0) {
            out.note(prefix, loop.failed.get() + " requests failed");
        }
        // A quarter of Insync's sends (a tenth of that with fsync): Ratis is slower per send and the
        // median needs far fewer samples than the tail.
        int sends = fsync ? Math.max(500, options.latencySends() / 40) : Math.max(1_000, options.latencySends() / 4);
        Histogram h = new Histogram(3_600_000_000_000L, 3);
        ClosedLoop warm = new ClosedLoop(send, 1);
        warm.runCount(Math.max(200, sends / 10), null);
        ClosedLoop one = new ClosedLoop(send, 1);
        one.runCount(sends, h);
        BenchSuite.recordLatency(out, prefix + ".latency", h);
        out.histogram("ratis " + (prefix.contains("grpc") ? "gRPC" : "sim") + (fsync ? " fsync" : ""), h);
    }

    /** Keeps {@code window} sends in flight, each completion starting the next. */
    private static final class ClosedLoop {
        private final Supplier<CompletableFuture<RaftClientReply>> send;
        private final int window;
        final AtomicLong ok = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        private final AtomicInteger inFlight = new AtomicInteger();
        private final AtomicBoolean running = new AtomicBoolean();
        private final CompletableFuture<Void> drained = new CompletableFuture<>();
        private volatile long remaining = Long.MAX_VALUE;
        private volatile Histogram histogram;

        ClosedLoop(Supplier<CompletableFuture<RaftClientReply>> send, int window) {
            this.send = send;
            this.window = window;
        }

        void start() {
            running.set(true);
            for (int i = 0; i < window; i++) {
                sendOne();
            }
        }

        void runCount(long count, Histogram h) throws Exception {
            remaining = count;
            histogram = h;
            start();
            drained.get(10, TimeUnit.MINUTES);
        }

        void stopAndDrain() throws Exception {
            running.set(false);
            if (inFlight.get() == 0) {
                drained.complete(null);
            }
            drained.get(2, TimeUnit.MINUTES);
        }

        private void sendOne() {
            inFlight.incrementAndGet();
            long start = System.nanoTime();
            send.get().whenComplete((reply, error) -> {
                Histogram h = histogram;
                if (h != null) {
                    h.recordValue(System.nanoTime() - start);
                }
                if (error == null && reply.isSuccess()) {
                    ok.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                }
                int left = inFlight.decrementAndGet();
                if (--remaining <= 0) {
                    running.set(false);
                }
                if (running.get()) {
                    sendOne();
                } else if (left == 0) {
                    drained.complete(null);
                }
            });
        }
    }

    private static RaftProperties properties(BenchOptions options, boolean fsync, Path dir) {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, !fsync);
        RaftClientConfigKeys.Async.setOutstandingRequestsMax(p, options.window());
        RaftServerConfigKeys.setStorageDir(p, List.of(dir.toFile()));
        // Generous election timeouts: a GC pause of the shared JVM must not look like a dead leader.
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(2, TimeUnit.SECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(4, TimeUnit.SECONDS));
        return p;
    }

    /** A running group of three peers and a client. */
    private interface Peers extends AutoCloseable {
        RaftClient client();

        @Override
        void close() throws Exception;
    }

    private static Peers simulated(BenchOptions options, boolean fsync, Path workDir) throws IOException {
        // MiniRaftCluster reads test.build.data once per JVM and deletes its directory on shutdown:
        // one fixed directory, recreated before every cluster.
        if (System.getProperty("test.build.data") == null) {
            System.setProperty("test.build.data", workDir.resolve("ratis-sim").toString());
        }
        Path dir = Files.createDirectories(Path.of(System.getProperty("test.build.data")));
        RaftProperties p = properties(options, fsync, dir);
        MiniRaftCluster cluster = MiniRaftClusterWithSimulatedRpc.FACTORY.newCluster(3, p);
        cluster.setStateMachineRegistry(group -> new CountingStateMachine());
        cluster.start();
        RaftClient client = cluster.createClient();
        return new Peers() {
            @Override
            public RaftClient client() {
                return client;
            }

            @Override
            public void close() throws Exception {
                client.close();
                cluster.shutdown();
            }
        };
    }

    private static Peers grpc(BenchOptions options, boolean fsync, Path workDir) throws IOException {
        RaftGroupId groupId = RaftGroupId.valueOf(UUID.randomUUID());
        List<RaftPeer> peerList = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            peerList.add(RaftPeer.newBuilder().setId("p" + i).setAddress("127.0.0.1:" + freePort()).build());
        }
        RaftGroup group = RaftGroup.valueOf(groupId, peerList);
        List<RaftServer> servers = new ArrayList<>();
        for (RaftPeer peer : peerList) {
            Path dir = Files.createTempDirectory(workDir, "ratis-grpc-" + peer.getId() + "-");
            RaftProperties p = properties(options, fsync, dir);
            GrpcConfigKeys.Server.setPort(p, Integer.parseInt(peer.getAddress().split(":")[1]));
            RaftServer server = RaftServer.newBuilder().setServerId(peer.getId()).setGroup(group).setProperties(p)
                    .setStateMachine(new CountingStateMachine()).build();
            server.start();
            servers.add(server);
        }
        RaftProperties clientProps = properties(options, fsync, workDir);
        RaftClient client = RaftClient.newBuilder().setProperties(clientProps).setRaftGroup(group)
                .setClientId(org.apache.ratis.protocol.ClientId.randomId()).build();
        return new Peers() {
            @Override
            public RaftClient client() {
                return client;
            }

            @Override
            public void close() throws Exception {
                client.close();
                for (RaftServer s : servers) {
                    s.close();
                }
            }
        };
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
