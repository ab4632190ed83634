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

import java.nio.file.Path;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * {@link ReplicationSuite} over Netty on loopback, in real time: a Ratis controller node and three
 * brokers, each an {@code InsyncServer} in this JVM, every link through a freezable proxy. Its tests
 * run concurrently (three at a time, the build's bound): each has its own cluster, ports and
 * directory, and spends most of its time waiting on session and lag timeouts.
 */
@Execution(ExecutionMode.CONCURRENT)
class NettyReplicationSuiteTest extends ReplicationSuite {

    @Override
    ReplicationCluster newCluster(ReplicationCluster.Settings settings, Path root) {
        return new NettyReplicationCluster(settings, root);
    }
}
