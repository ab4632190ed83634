/**
 * The process bench ({@code --sections processes}): replication systems running as separate JVMs
 * on this machine, over TCP on loopback, measured by one workload ({@link dev.insync.replication.bench.processes.ProcessWorkload})
 * against one interface ({@link dev.insync.replication.bench.processes.ProcessBenchTarget} with its
 * {@link dev.insync.replication.bench.processes.BenchClient}), so that every system is measured alike.
 * Targets are found with {@link java.util.ServiceLoader} ({@link dev.insync.replication.bench.processes.ProcessBenchTargetFactory}):
 * Insync's own broker processes ({@code insync}, always) and Apache Kafka 4.4 ({@code kafka}, with the {@code -Ppeers} build).
 */
package dev.insync.replication.bench.processes;
