package dev.insync.replication.cli.client;

import dev.insync.replication.cli.InsyncCli;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.netty.client.ProduceFailedException;
import dev.insync.replication.netty.client.RecordMetadata;
import dev.insync.replication.netty.config.ClientConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code insync produce}: writes records to one partition, {@code --count N} generated values
 * ({@code <prefix><i>}) or one record per line of stdin, and prints each acknowledged record's
 * partition, offset and leader epoch ({@code --print-offsets}) and a summary. Exit codes: 0 every
 * record acknowledged; 1 some failed or the topic is unknown (the summary says which way: not
 * written, appended, unknown); 2 bad input.
 */
@Command(name = "produce", mixinStandardHelpOptions = true,
        description = {"Writes records to a partition: --count generated values, or one per line of stdin.",
            "Prints a summary; exit code 1 if any record was not acknowledged, 2 for bad input."})
public final class ProduceCommand implements Callable<Integer> {

    /** Most records --count may ask for. */
    static final long MAX_COUNT = 100_000_000L;

    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions cluster;

    @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic.")
    private String topic;

    @Option(names = "--partition", paramLabel = "P", defaultValue = "0", description = "The partition (default ${DEFAULT-VALUE}).")
    private int partition;

    @Option(names = "--acks", paramLabel = "ACKS", defaultValue = "all", description = "0, 1, -1 or all (default ${DEFAULT-VALUE}).")
    private String acks;

    @Option(names = "--count", paramLabel = "N", description = "Send N generated values instead of reading stdin.")
    private Long count;

    @Option(names = "--value-prefix", paramLabel = "TEXT", defaultValue = "record-",
            description = "Prefix of generated values (default ${DEFAULT-VALUE}).")
    private String valuePrefix;

    @Option(names = "--linger-ms", paramLabel = "MS", defaultValue = "5", description = "linger.ms (default ${DEFAULT-VALUE}).")
    private long lingerMs;

    @Option(names = "--batch-size", paramLabel = "BYTES", defaultValue = "16384", description = "batch.size (default ${DEFAULT-VALUE}).")
    private int batchSize;

    @Option(names = "--print-offsets", description = "Print 'topic-partition@offset leaderEpoch=E' for each acknowledged record.")
    private boolean printOffsets;

    private final InputStream stdin;

    /** Reads stdin. */
    public ProduceCommand() {
        this(System.in);
    }

    /** Reads {@code stdin} for the records (tests). */
    public ProduceCommand(InputStream stdin) {
        this.stdin = stdin;
    }

    @Override
    public Integer call() throws Exception {
        if (count != null && (count < 0 || count > MAX_COUNT)) {
            throw new ParameterException(spec.commandLine(), "--count must be in 0.." + MAX_COUNT + ", got " + count);
        }
        TopicPartition tp;
        try {
            tp = new TopicPartition(topic, partition);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (InsyncClient client = cluster.client(spec, true, Map.of(ClientConfig.ACKS, acks,
                ClientConfig.LINGER_MS, lingerMs, ClientConfig.BATCH_SIZE, batchSize))) {
            List<PartitionRegistration> partitions;
            try {
                partitions = client.describeTopic(topic).get(cluster.timeoutMs + 5_000, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                err.println("Cannot produce to " + tp + ": " + e.getCause().getMessage());
                return InsyncCli.EXIT_FAILURE;
            }
            if (partition < 0 || partition >= partitions.size()) {
                err.println("Topic " + topic + " has partitions 0.." + (partitions.size() - 1) + ", not " + partition);
                return InsyncCli.EXIT_FAILURE;
            }
            List<CompletableFuture<RecordMetadata>> sent = new ArrayList<>();
            if (count != null) {
                for (long i = 0; i < count; i++) {
                    sent.add(client.send(tp, null, (valuePrefix + i).getBytes(StandardCharsets.UTF_8)));
                }
            } else {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        sent.add(client.send(tp, null, line.getBytes(StandardCharsets.UTF_8)));
                    }
                }
            }
            client.flush().get(client.config().deliveryTimeoutMs() + 5_000, TimeUnit.MILLISECONDS);
            long acked = 0;
            Map<ProduceFailedException.Written, Long> failed = new EnumMap<>(ProduceFailedException.Written.class);
            String firstError = null;
            for (CompletableFuture<RecordMetadata> f : sent) {
                try {
                    RecordMetadata md = f.get();
                    acked++;
                    if (printOffsets) {
                        out.println(md.topicPartition() + "@" + md.offset() + " leaderEpoch=" + md.leaderEpoch());
                    }
                } catch (ExecutionException e) {
                    ProduceFailedException p = (ProduceFailedException) e.getCause();
                    failed.merge(p.written(), 1L, Long::sum);
                    if (firstError == null) {
                        firstError = p.getMessage();
                    }
                }
            }
            out.println("Acknowledged " + acked + " of " + sent.size() + " records to " + tp + " (acks=" + acks + ")"
                    + (failed.isEmpty() ? "" : "; failed " + failed + " by whether written"));
            if (firstError != null) {
                err.println("First failure: " + firstError);
                return InsyncCli.EXIT_FAILURE;
            }
            return 0;
        }
    }
}
