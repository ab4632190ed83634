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
 * The process bench ({@code --sections processes}): replication systems running as separate JVMs
 * on this machine, over TCP on loopback, measured by one workload ({@link dev.insync.replication.bench.processes.ProcessWorkload})
 * against one interface ({@link dev.insync.replication.bench.processes.ProcessBenchTarget} with its
 * {@link dev.insync.replication.bench.processes.BenchClient}), so that every system is measured alike.
 * Targets are found with {@link java.util.ServiceLoader} ({@link dev.insync.replication.bench.processes.ProcessBenchTargetFactory}):
 * Insync's own broker processes ({@code insync}, always) and Apache Kafka 4.4 ({@code kafka}, with the {@code -Ppeers} build).
 */
package dev.insync.replication.bench.processes;
