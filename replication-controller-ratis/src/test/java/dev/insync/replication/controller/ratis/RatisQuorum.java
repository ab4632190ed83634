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

import dev.insync.replication.controller.state.ControllerState;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Test fixture: {@code n} Ratis controller nodes in this JVM on 127.0.0.1 and free ports, each with
 * its own {@code metadata.log.dir} under {@code root}. Nodes can be killed (closed: process state
 * gone, files kept) and restarted from their directories. {@link #close()} closes every node.
 */
final class RatisQuorum implements AutoCloseable {

    final Path root;
    final String voters;
    final Map<String, Object> extra;
    final ConcurrentSkipListMap<Integer, RatisControllerNode> nodes = new ConcurrentSkipListMap<>();
    final int size;

    RatisQuorum(Path root, int size, Map<String, Object> extra) {
        this.root = root;
        this.size = size;
        this.extra = extra;
        List<String> entries = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            entries.add(id + "@127.0.0.1:" + freePort());
        }
        this.voters = String.join(",", entries);
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Map<String, Object> properties(int id) {
        Map<String, Object> p = new HashMap<>();
        p.put("node.id", id);
        p.put("process.roles", "controller");
        p.put("controller.quorum.voters", voters);
        p.put("metadata.log.dir", root.resolve("node-" + id).toString());
        p.put("controller.quorum.election.timeout.ms", 500);
        p.put("broker.session.timeout.ms", 9000);
        p.put("broker.heartbeat.interval.ms", 500);
        p.putAll(extra);
        return p;
    }

    RatisQuorum startAll() throws IOException {
        for (int id = 1; id <= size; id++) {
            start(id);
        }
        return this;
    }

    RatisControllerNode start(int id) throws IOException {
        RatisControllerNode node = RatisControllerNode.start(properties(id));
        nodes.put(id, node);
        return node;
    }

    void kill(int id) {
        RatisControllerNode node = nodes.remove(id);
        if (node != null) {
            node.close();
        }
    }

    RatisControllerNode node(int id) {
        return nodes.get(id);
    }

    Optional<RatisControllerNode> active() {
        return nodes.values().stream().filter(RatisControllerNode::isActive).findFirst();
    }

    RatisControllerNode awaitActive(long timeoutMs) throws InterruptedException {
        awaitCondition(timeoutMs, () -> active().isPresent(), "an active controller among " + nodes.keySet());
        return active().orElseThrow();
    }

    /** Every live node has replayed at least {@code offset}. */
    void awaitCommitted(long offset, long timeoutMs) throws InterruptedException {
        awaitCondition(timeoutMs, () -> nodes.values().stream().allMatch(n -> n.controller().committedOffset() >= offset),
                "every node at offset " + offset + ": " + committedOffsets());
    }

    Map<Integer, Long> committedOffsets() {
        return nodes.values().stream().collect(Collectors.toMap(RatisControllerNode::nodeId,
                n -> n.controller().committedOffset()));
    }

    static String dump(RatisControllerNode node) throws Exception {
        return node.controller().readCommitted(v -> ((ControllerState) v).canonicalDump()).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }

    static void awaitCondition(long timeoutMs, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeoutMs + " ms waiting for " + what);
            }
            Thread.sleep(10); // polling a condition in a test harness, bounded by the deadline
        }
    }

    @Override
    public void close() {
        for (Integer id : new ArrayList<>(nodes.keySet())) {
            kill(id);
        }
    }
}
