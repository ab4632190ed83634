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

package dev.insync.replication.bench.peers.kafka;

import dev.insync.replication.bench.processes.ProcessBenchSettings;
import dev.insync.replication.bench.processes.ProcessBenchTarget;
import dev.insync.replication.bench.processes.ProcessBenchTargetFactory;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code kafka} target of the process bench: a {@link KafkaCluster} on the class path that
 * {@code replication-bench/kafka-server/pom.xml} resolves (Kafka's server jars, none of the bench's).
 */
public final class KafkaTargetFactory implements ProcessBenchTargetFactory {

    static final String NAME = "kafka";
    /** Where {@code mvn -f replication-bench/kafka-server/pom.xml dependency:build-classpath} writes the class path. */
    static final Path DEFAULT_CLASSPATH_FILE = Path.of("replication-bench", "kafka-server", "target", "kafka-server.classpath");
    private static final Pattern SERVER_JAR = Pattern.compile("kafka_2\\.13-([0-9][^/:]*)\\.jar");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ProcessBenchTarget start(Path workDir, ProcessBenchSettings settings, Consumer<String> progress) throws Exception {
        Path file = classPathFile(settings);
        String classPath = Files.readString(file, StandardCharsets.UTF_8).strip();
        Matcher jar = SERVER_JAR.matcher(classPath);
        if (!jar.find()) {
            throw new IllegalArgumentException(file + " holds no kafka_2.13 jar: not Kafka's server class path");
        }
        return KafkaCluster.start(classPath, jar.group(1), workDir, settings.startTimeout(), settings.retention(),
                progress);
    }

    /** The given file, else the default one (from the working directory, then from this module's build directory). */
    private static Path classPathFile(ProcessBenchSettings settings) throws IOException {
        Optional<Path> given = settings.serverClassPath(NAME);
        if (given.isPresent()) {
            if (!Files.isRegularFile(given.get())) {
                throw new IOException("Kafka's server class path file " + given.get() + " does not exist");
            }
            return given.get();
        }
        List<Path> candidates = new ArrayList<>();
        candidates.add(DEFAULT_CLASSPATH_FILE);
        moduleDir().ifPresent(m -> candidates.add(m.resolve("kafka-server").resolve("target").resolve("kafka-server.classpath")));
        for (Path c : candidates) {
            if (Files.isRegularFile(c)) {
                return c;
            }
        }
        throw new IOException("No class path for Kafka's server processes at " + candidates + ": run `mvn -B -ntp -q -f"
                + " replication-bench/kafka-server/pom.xml dependency:build-classpath` from the repository root,"
                + " or pass --server-classpath kafka=FILE");
    }

    /** replication-bench/, when running from its target/classes. */
    private static Optional<Path> moduleDir() {
        try {
            Path classes = Path.of(KafkaTargetFactory.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Optional.ofNullable(classes.getParent()).map(Path::getParent);
        } catch (URISyntaxException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
