package dev.insync.replication.cli.client;

import dev.insync.replication.cli.InsyncCli;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.client.ConsumerRecord;
import dev.insync.replication.netty.client.FetchResult;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.netty.client.PartitionConsumer;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code insync consume}: reads a topic's partitions (or one) below the HW, following leader
 * changes, and prints each record's value as UTF-8, one per line ({@code --print-offsets} prefixes
 * {@code topic-partition@offset }). Starts at the beginning ({@code --from-beginning}), at an
 * offset ({@code --offset}, with {@code --partition}), or at the HW (Kafka's default, latest). Stops
 * after {@code --max-records}, or when no record came for {@code --idle-timeout-ms}. Exit codes: 0;
 * 1 the topic is unknown or the cluster cannot be reached; 2 bad input.
 */
@Command(name = "consume", mixinStandardHelpOptions = true,
        description = {"Reads records below the high watermark and prints their values, one per line.",
            "Exit code 1 if the topic is unknown or unreachable, 2 for bad input."})
public final class ConsumeCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions cluster;

    @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic.")
    private String topic;

    @Option(names = "--partition", paramLabel = "P", description = "Only this partition (default: every partition).")
    private Integer partition;

    static final class Start {
        @Option(names = "--from-beginning", required = true, description = "Start at offset 0 (the log start, if retention moved it).")
        boolean fromBeginning;
        @Option(names = "--offset", required = true, paramLabel = "OFFSET", description = "Start at this offset (needs --partition).")
        Long offset;
    }

    @ArgGroup(exclusive = true)
    private Start start;

    @Option(names = "--max-records", paramLabel = "N", description = "Stop after N records.")
    private Long maxRecords;

    @Option(names = "--idle-timeout-ms", paramLabel = "MS", defaultValue = "10000",
            description = "Stop when no record came for this long (default ${DEFAULT-VALUE}).")
    private long idleTimeoutMs;

    @Option(names = "--print-offsets", description = "Prefix each value with 'topic-partition@offset '.")
    private boolean printOffsets;

    @Override
    public Integer call() throws Exception {
        if (maxRecords != null && maxRecords < 1) {
            throw new ParameterException(spec.commandLine(), "--max-records must be at least 1, got " + maxRecords);
        }
        if (idleTimeoutMs < 1) {
            throw new ParameterException(spec.commandLine(), "--idle-timeout-ms must be at least 1, got " + idleTimeoutMs);
        }
        if (start != null && start.offset != null && (partition == null || start.offset < 0)) {
            throw new ParameterException(spec.commandLine(), "--offset needs --partition and a value of at least 0");
        }
        try {
            new TopicPartition(topic, partition == null ? 0 : partition);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (InsyncClient client = cluster.client(spec, true, Map.of())) {
            List<PartitionRegistration> partitions;
            try {
                partitions = client.describeTopic(topic).get(cluster.timeoutMs + 5_000, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                err.println("Cannot consume " + topic + ": " + e.getCause().getMessage());
                return InsyncCli.EXIT_FAILURE;
            }
            if (partition != null && (partition < 0 || partition >= partitions.size())) {
                err.println("Topic " + topic + " has partitions 0.." + (partitions.size() - 1) + ", not " + partition);
                return InsyncCli.EXIT_FAILURE;
            }
            List<PartitionConsumer> consumers = new ArrayList<>();
            for (PartitionRegistration p : partitions) {
                TopicPartition tp = p.topicPartition();
                if (partition == null || tp.partition() == partition) {
                    consumers.add(client.consumer(tp, startOffset(client, tp)));
                }
            }
            long printed = 0;
            long idleSinceNs = System.nanoTime();
            long pollMs = Math.max(1, Math.min(1_000, idleTimeoutMs / Math.max(1, consumers.size())));
            while (maxRecords == null || printed < maxRecords) {
                boolean got = false;
                for (PartitionConsumer c : consumers) {
                    for (ConsumerRecord r : c.poll(pollMs)) {
                        if (maxRecords != null && printed >= maxRecords) {
                            break;
                        }
                        String value = r.value() == null ? "null" : new String(r.value(), StandardCharsets.UTF_8);
                        out.println(printOffsets ? r.topicPartition() + "@" + r.offset() + " " + value : value);
                        printed++;
                        got = true;
                    }
                }
                if (got) {
                    idleSinceNs = System.nanoTime();
                } else if (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - idleSinceNs) >= idleTimeoutMs) {
                    break;
                }
            }
            out.flush();
            err.println("Processed a total of " + printed + " messages");
            return 0;
        }
    }

    /** --from-beginning: 0 (moved to the log start by the consumer if retention removed it); --offset; else the HW. */
    private long startOffset(InsyncClient client, TopicPartition tp) throws Exception {
        if (start != null && start.fromBeginning) {
            return 0L;
        }
        if (start != null && start.offset != null) {
            return start.offset;
        }
        // Latest, Kafka's default: the HW a first fetch reports.
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(cluster.timeoutMs);
        while (System.nanoTime() < deadline) {
            FetchResult r = client.fetch(tp, 0L).get(cluster.timeoutMs + 5_000, TimeUnit.MILLISECONDS);
            if (r.highWatermark() >= 0 && (r.error() == Errors.NONE || r.error() == Errors.OFFSET_OUT_OF_RANGE)) {
                return r.highWatermark();
            }
        }
        throw new IllegalStateException("No leader of " + tp + " answered within " + cluster.timeoutMs + " ms");
    }
}
