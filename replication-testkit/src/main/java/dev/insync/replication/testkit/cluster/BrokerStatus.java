package dev.insync.replication.testkit.cluster;

/** Where a broker of an {@link InMemoryCluster} is in its life, as a process would be. */
public enum BrokerStatus {
    /** Started and serving. */
    RUNNING,
    /** SIGSTOP: alive, its memory intact, but nothing of it runs until resumed. */
    PAUSED,
    /** Not running: never started, killed, lost power or shut down; only its files remain. */
    DOWN
}
