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
