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

package dev.insync.replication.bench.processes;

import java.util.List;

/**
 * The JVM options every target's server processes get, so that no system is measured with more
 * heap or another collector than the other: those Apache Kafka's own start scripts give a broker
 * ({@code kafka-server-start.sh}'s heap, {@code kafka-run-class.sh}'s performance options).
 */
public final class ServerJvmOptions {

    /** {@code -Xmx1G -Xms1G}, G1 with a 20 ms pause goal, as Kafka's scripts start a broker or controller. */
    public static final List<String> KAFKA_START_SCRIPT = List.of("-Xmx1G", "-Xms1G", "-server", "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
            "-Djava.awt.headless=true");

    private ServerJvmOptions() {
    }
}
