package dev.insync.replication.server.suite;

import java.nio.file.Path;

/** {@link ReplicationSuite} on the testkit's in-memory cluster, in simulated time. */
class InMemoryReplicationSuiteTest extends ReplicationSuite {

    @Override
    ReplicationCluster newCluster(ReplicationCluster.Settings settings, Path root) {
        return new InMemoryReplicationCluster(settings, root);
    }
}
