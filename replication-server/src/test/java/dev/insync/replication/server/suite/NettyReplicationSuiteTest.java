package dev.insync.replication.server.suite;

import java.nio.file.Path;

/**
 * {@link ReplicationSuite} over Netty on loopback, in real time: a Ratis controller node and three
 * brokers, each an {@code InsyncServer} in this JVM, every link through a freezable proxy.
 */
class NettyReplicationSuiteTest extends ReplicationSuite {

    @Override
    ReplicationCluster newCluster(ReplicationCluster.Settings settings, Path root) {
        return new NettyReplicationCluster(settings, root);
    }
}
