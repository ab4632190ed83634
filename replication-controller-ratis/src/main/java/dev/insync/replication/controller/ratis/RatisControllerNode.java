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

import dev.insync.replication.controller.QuorumController;
import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.core.time.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * One controller process (Kafka's {@code process.roles=controller}): a {@link QuorumController} over
 * a {@link RatisMetadataLog}, on threads of its own. Build it from Kafka-named properties:
 * <pre>{@code
 * RatisControllerNode node = RatisControllerNode.start(Map.of(
 *         "node.id", "1",
 *         "process.roles", "controller",
 *         "controller.quorum.voters", "1@10.0.0.1:9093,2@10.0.0.2:9093,3@10.0.0.3:9093",
 *         "metadata.log.dir", "/var/lib/insync/metadata"));
 * ControllerApi api = node.controllerApi();   // hand it to the RPC server / in-JVM brokers
 * }</pre>
 * The Ratis leader is the active controller; the others answer writes with {@code NOT_CONTROLLER}
 * and a hint, and serve metadata fetches and describes from their committed state.
 * {@link #close()} stops the controller, the Raft server and every thread, each within a bound.
 */
public final class RatisControllerNode implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RatisControllerNode.class);

    /** How long closing waits for each of the node's threads. */
    public static final long CLOSE_TIMEOUT_MS = 5_000;

    private final RatisControllerConfig config;
    private final ThreadScheduler scheduler;
    private final RatisMetadataLog metadataLog;
    private final QuorumController controller;

    private RatisControllerNode(RatisControllerConfig config, ThreadScheduler scheduler, RatisMetadataLog metadataLog,
                                QuorumController controller) {
        this.config = config;
        this.scheduler = scheduler;
        this.metadataLog = metadataLog;
        this.controller = controller;
    }

    /**
     * Starts a node from Kafka-named properties (see {@link RatisControllerConfig#fromProperties}).
     *
     * @throws IllegalArgumentException naming a bad property
     * @throws IOException              if the metadata log cannot start (e.g. a corrupt snapshot, named)
     */
    public static RatisControllerNode start(Map<String, ?> properties) throws IOException {
        return start(RatisControllerConfig.fromProperties(properties));
    }

    /**
     * Starts a node: opens the Raft log in {@code metadata.log.dir}, replays its snapshot and log into
     * the controller, joins the quorum.
     *
     * @throws IOException if the metadata log cannot start; nothing is left running then
     */
    public static RatisControllerNode start(RatisControllerConfig config) throws IOException {
        Objects.requireNonNull(config, "config");
        ThreadScheduler scheduler = new ThreadScheduler(Time.SYSTEM, "controller-" + config.nodeId(), 1, CLOSE_TIMEOUT_MS);
        RatisMetadataLog metadataLog = null;
        QuorumController controller = null;
        try {
            metadataLog = new RatisMetadataLog(config, scheduler);
            controller = new QuorumController(config.nodeId(), metadataLog, scheduler, config.controllerConfig());
            // Register first: the log then delivers its snapshot and batches as it loads them.
            controller.start();
            metadataLog.start();
        } catch (IOException | RuntimeException e) {
            if (controller != null) {
                controller.close();
            }
            if (metadataLog != null) {
                metadataLog.close();
            }
            scheduler.close();
            throw e;
        }
        log.info("Controller node {} started on {} with voters {}", config.nodeId(), config.self().address(),
                config.voters());
        return new RatisControllerNode(config, scheduler, metadataLog, controller);
    }

    /** The request surface of this node (writes succeed only on the active controller). */
    public ControllerApi controllerApi() {
        return controller;
    }

    /** The controller itself (state reads for tools and tests). */
    public QuorumController controller() {
        return controller;
    }

    /** This node's metadata log. */
    public RatisMetadataLog metadataLog() {
        return metadataLog;
    }

    /** This node's settings. */
    public RatisControllerConfig config() {
        return config;
    }

    /** {@code node.id}. */
    public int nodeId() {
        return config.nodeId();
    }

    /** Whether this node is the active controller now. */
    public boolean isActive() {
        return controller.isActive();
    }

    /** Stops the controller, then the Raft server, then the node's threads. Idempotent. */
    @Override
    public void close() {
        controller.close();
        metadataLog.close();
        scheduler.close();
        log.info("Controller node {} closed", config.nodeId());
    }
}
