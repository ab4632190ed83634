/**
 * Separate JVMs started, probed, signalled and reaped by PID: {@link dev.insync.replication.testkit.process.ProcessGroup}
 * starts each {@link dev.insync.replication.testkit.process.JvmSpec} as a child process with its output captured to a
 * file, waits for a {@link dev.insync.replication.testkit.process.ReadinessProbe} with a bound, and kills every process
 * it started when closed, when its JVM exits (shutdown hook), or, when that JVM itself died by {@code kill -9}, the next
 * time a group is opened on the same PID directory. {@link dev.insync.replication.testkit.process.JvmProcess} delivers
 * the faults a process suffers ({@code kill -9}, SIGTERM, SIGSTOP and SIGCONT) and reads its CPU time from
 * {@code /proc}. Nothing is ever killed by name. Plain JDK only (Linux for signals and {@code /proc}), so that tests
 * and the bench alike can start brokers of Insync or of Apache Kafka.
 */
package dev.insync.replication.testkit.process;
