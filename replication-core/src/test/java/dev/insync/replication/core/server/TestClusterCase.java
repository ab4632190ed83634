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

package dev.insync.replication.core.server;

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * What the tests on a {@link TestCluster} share: its directory, the cluster (stopped after each test,
 * not cleanly), the usual partitions and a broker's {@link ReplicaManager}.
 */
abstract class TestClusterCase {

    static final TopicPartition REP0 = new TopicPartition("rep", 0);
    static final TopicPartition REP1 = new TopicPartition("rep", 1);

    @TempDir
    Path tmp;

    TestCluster cluster;

    /** A cluster with {@code brokers} started, stopped after the test. */
    TestCluster cluster(ReplicationConfig config, int... brokers) {
        cluster = TestCluster.started(tmp, config, brokers);
        return cluster;
    }

    ReplicaManager rm(int id) {
        return cluster.managers.get(id);
    }

    @AfterEach
    void stopAll() {
        if (cluster != null) {
            cluster.stopAll();
        }
    }
}
