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

package dev.insync.replication.bench.processes.insync;

import dev.insync.replication.bench.harness.LogRetentionBound;
import dev.insync.replication.bench.processes.ProcessBenchSettings;
import dev.insync.replication.bench.processes.ProcessBenchTarget;
import dev.insync.replication.bench.processes.ProcessBenchTargetFactory;
import dev.insync.replication.bench.processes.ServerJvmOptions;
import dev.insync.replication.cli.InsyncCli;

import dev.insync.replication.netty.config.NetworkConfig;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The {@code insync} target of the process bench: an {@link InsyncCluster} of {@code insync broker}
 * processes. Needs no {@code -Ppeers}: it is this project's own code. The servers run on the
 * bench's own class path (the code the bench was built from, so no separately built jar can be
 * stale), or on the class path in the file {@code --server-classpath insync=FILE} names, e.g. one
 * holding the path of {@code replication-cli/target/insync.jar}. Their JVM options are Kafka's
 * processes' ({@link ServerJvmOptions#KAFKA_START_SCRIPT}) and INFO logging, as {@code insync broker}
 * logs by default and as the Kafka target's servers log.
 */
public final class InsyncTargetFactory implements ProcessBenchTargetFactory {

    static final String NAME = "insync";
    /** The CLI's own default level: the bench's simplelogger.properties (errors only) comes first on its class path. */
    static final String LOG_LEVEL_OPTION = "-Dorg.slf4j.simpleLogger.defaultLogLevel=info";

    private final List<String> jvmOptions;
    private final Map<String, String> overrides;
    private final int clientBufferBytes;

    /** The bench's target: Kafka's JVM options, Insync's default settings, Kafka's producer buffer bound. */
    public InsyncTargetFactory() {
        this(defaultJvmOptions(), Map.of(), InsyncBenchClient.BUFFER_MEMORY_BYTES);
    }

    /**
     * With other JVM options, server properties laid over Insync's defaults and another bound of the
     * client's pending bytes (for a test that must run and fail over in a few seconds on small heaps);
     * the report's description names all three.
     */
    public InsyncTargetFactory(List<String> jvmOptions, Map<String, String> overrides, int clientBufferBytes) {
        this.jvmOptions = List.copyOf(jvmOptions);
        this.overrides = Map.copyOf(overrides);
        this.clientBufferBytes = clientBufferBytes;
    }

    /** {@link ServerJvmOptions#KAFKA_START_SCRIPT} and {@link #LOG_LEVEL_OPTION}. */
    static List<String> defaultJvmOptions() {
        List<String> options = new ArrayList<>(ServerJvmOptions.KAFKA_START_SCRIPT);
        options.add(LOG_LEVEL_OPTION);
        return List.copyOf(options);
    }

    /** How the cluster's processes are started, and what the report says about it. */
    record Launch(String classPath, String classPathSource, List<String> jvmOptions, Map<String, String> overrides,
                  int clientBufferBytes, Optional<LogRetentionBound> retention) {

        String description() {
            return "Insync " + version() + " (insync broker --config, " + classPathSource + "): 1 controller node and "
                    + InsyncCluster.BROKER_IDS.size() + " brokers, each its own JVM (" + String.join(" ", jvmOptions)
                    + ", Kafka's processes' heap and GC), Insync's defaults, which are Kafka's (so no fsync per message,"
                    + " broker.session.timeout.ms 9000, replica.lag.time.max.ms 30000, 8 I/O threads), but "
                    + "num.network.threads " + NetworkConfig.defaultNumNetworkThreads() + " (half the processors; Kafka's is 3)"
                    + retention.map(b -> ", and the bench's bound on the disk a run fills, "
                    + new TreeMap<>(InsyncServerConfig.retention(b))).orElse("")
                    + (overrides.isEmpty() ? "" : ", but " + new TreeMap<>(overrides))
                    + "; client InsyncClient with the Kafka client's acks, batch.size, linger.ms and"
                    + " max.in.flight.requests.per.connection, buffer.memory " + clientBufferBytes
                    + (clientBufferBytes == InsyncBenchClient.BUFFER_MEMORY_BYTES
                    ? " (Kafka's default)" : " (Kafka's default is " + InsyncBenchClient.BUFFER_MEMORY_BYTES + ")");
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ProcessBenchTarget start(Path workDir, ProcessBenchSettings settings, Consumer<String> progress) throws Exception {
        return InsyncCluster.start(launch(settings), workDir, settings.startTimeout(), progress);
    }

    Launch launch(ProcessBenchSettings settings) throws IOException {
        Optional<Path> file = settings.serverClassPath(NAME);
        if (file.isEmpty()) {
            return new Launch(System.getProperty("java.class.path"), "the bench's own class path", jvmOptions, overrides,
                    clientBufferBytes, settings.retention());
        }
        if (!Files.isRegularFile(file.get())) {
            throw new IOException("Insync's server class path file " + file.get() + " does not exist");
        }
        String classPath = Files.readString(file.get(), StandardCharsets.UTF_8).strip();
        if (classPath.isEmpty()) {
            throw new IOException("Insync's server class path file " + file.get() + " is empty");
        }
        return new Launch(classPath, "class path from " + file.get(), jvmOptions, overrides, clientBufferBytes,
                settings.retention());
    }

    /** The version {@code insync --version} prints, from the CLI's version resource. */
    static String version() {
        try (InputStream in = InsyncCli.class.getResourceAsStream("/insync-version.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version");
                if (v != null && !v.isBlank() && !v.startsWith("${")) {
                    return v;
                }
            }
        } catch (IOException e) {
            // fall through: the version only labels the report
        }
        return "(version unknown)";
    }
}
