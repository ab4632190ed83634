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

package dev.insync.replication.cli.client;

import dev.insync.replication.cli.InsyncCli;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.netty.protocol.MetadataResponse;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code insync topics}: Kafka's {@code kafka-topics.sh} for an Insync cluster. {@code --create}
 * and {@code --delete} go to the controller ({@code --bootstrap-controller}; with only {@code --bootstrap-server}, to a
 * broker, which serves it only if it forwards admin requests); {@code --describe} prints Kafka's
 * describe lines, from a broker's Metadata or, with {@code --bootstrap-controller} only, from the
 * controller (with the topic's {@code min.insync.replicas}).
 *
 * <p>Exit codes: 0 done; 1 the cluster refused or could not be reached (message on stderr); 2 bad
 * input (not exactly one of --create/--describe/--delete, a missing or invalid option, a --config that is not
 * name=value).
 */
@Command(name = "topics", mixinStandardHelpOptions = true,
        description = {"Creates, describes or deletes topics (Kafka's kafka-topics.sh).",
            "Exit code 1 if the cluster refuses or cannot be reached, 2 for bad input."})
public final class TopicsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions cluster;

    static final class Action {
        @Option(names = "--create", required = true, description = "Create a topic.")
        boolean create;
        @Option(names = "--describe", required = true, description = "Describe a topic (or every topic without --topic).")
        boolean describe;
        @Option(names = "--delete", required = true, description = "Delete a topic: every broker deletes its replicas.")
        boolean delete;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Action action;

    @Option(names = "--topic", paramLabel = "TOPIC", description = "The topic.")
    private String topic;

    @Option(names = "--partitions", paramLabel = "N", description = "Partitions of a new topic, at least 1.")
    private Integer partitions;

    @Option(names = "--replication-factor", paramLabel = "R", description = "Replicas per partition of a new topic, at least 1.")
    private Integer replicationFactor;

    @Option(names = "--config", paramLabel = "NAME=VALUE",
            description = "A topic config of a new topic, e.g. min.insync.replicas=2 (repeatable).")
    private List<String> configs = List.of();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (action.create) {
            Map<String, String> parsed = validateCreate();
            try (InsyncClient client = cluster.client(spec, false, Map.of())) {
                List<PartitionRegistration> created = await(client.createTopic(topic, partitions, replicationFactor, parsed));
                out.println("Created topic " + topic + ".");
                created.forEach(p -> out.println("\t" + InsyncClient.describeLine(p)));
                return 0;
            } catch (ExecutionException e) {
                return failed("Cannot create topic " + topic, e.getCause());
            }
        }
        if (!configs.isEmpty() || partitions != null || replicationFactor != null) {
            throw new ParameterException(spec.commandLine(), "--partitions, --replication-factor and --config go with --create");
        }
        if (action.delete) {
            if (topic == null) {
                throw new ParameterException(spec.commandLine(), "--delete needs --topic");
            }
            try (InsyncClient client = cluster.client(spec, false, Map.of())) {
                await(client.deleteTopic(topic));
                out.println("Deleted topic " + topic + ".");
                return 0;
            } catch (ExecutionException e) {
                return failed("Cannot delete topic " + topic, e.getCause());
            }
        }
        try (InsyncClient client = cluster.client(spec, false, Map.of())) {
            if (cluster.bootstrapServer == null) {
                if (topic == null) {
                    throw new ParameterException(spec.commandLine(), "--describe with --bootstrap-controller needs --topic");
                }
                TopicDescription d = await(client.describeTopicConfigs(topic));
                print(out, topic, d.partitions(), "min.insync.replicas=" + d.minInsyncReplicas());
                return 0;
            }
            MetadataResponse md = await(client.metadata());
            boolean found = false;
            for (MetadataResponse.TopicMetadata t : md.topics()) {
                if ((topic == null || t.name().equals(topic)) && t.error() == dev.insync.replication.log.Errors.NONE) {
                    print(out, t.name(), t.partitions(), "");
                    found = true;
                }
            }
            if (topic != null && !found) {
                spec.commandLine().getErr().println("Topic '" + topic + "' does not exist as expected");
                return InsyncCli.EXIT_FAILURE;
            }
            return 0;
        } catch (ExecutionException e) {
            return failed("Cannot describe " + (topic == null ? "the topics" : "topic " + topic), e.getCause());
        }
    }

    private Map<String, String> validateCreate() {
        if (topic == null) {
            throw new ParameterException(spec.commandLine(), "--create needs --topic");
        }
        try {
            new TopicPartition(topic, 0);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid topic name '" + topic + "': " + e.getMessage());
        }
        if (partitions == null || partitions < 1) {
            throw new ParameterException(spec.commandLine(), "--create needs --partitions of at least 1");
        }
        if (replicationFactor == null || replicationFactor < 1) {
            throw new ParameterException(spec.commandLine(), "--create needs --replication-factor of at least 1");
        }
        Map<String, String> parsed = new LinkedHashMap<>();
        for (String c : configs) {
            int eq = c.indexOf('=');
            if (eq <= 0 || eq == c.length() - 1) {
                throw new ParameterException(spec.commandLine(), "--config '" + c + "' is not NAME=VALUE");
            }
            parsed.put(c.substring(0, eq).trim(), c.substring(eq + 1).trim());
        }
        return parsed;
    }

    /** Kafka's describe: a topic line, then one tab-indented line per partition. */
    static void print(PrintWriter out, String topic, List<PartitionRegistration> partitions, String configs) {
        int rf = partitions.isEmpty() ? 0 : partitions.get(0).replicas().size();
        out.println("Topic: " + topic + "\tPartitionCount: " + partitions.size() + "\tReplicationFactor: " + rf
                + "\tConfigs: " + configs);
        partitions.forEach(p -> out.println("\t" + InsyncClient.describeLine(p)));
    }

    private <T> T await(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        try {
            return f.get(cluster.timeoutMs + 5_000, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new ExecutionException(new java.util.concurrent.TimeoutException("No answer within "
                    + cluster.timeoutMs + " ms (--timeout-ms)"));
        }
    }

    private int failed(String what, Throwable cause) {
        spec.commandLine().getErr().println(what + ": " + cause.getMessage());
        return InsyncCli.EXIT_FAILURE;
    }
}
