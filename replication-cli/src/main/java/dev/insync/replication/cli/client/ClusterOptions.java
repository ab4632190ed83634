package dev.insync.replication.cli.client;

import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.netty.config.ClientConfig;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.util.HashMap;
import java.util.Map;

/** Where the cluster is: {@code --bootstrap-server} (brokers) and {@code --bootstrap-controller}, as Kafka's tools name them. */
final class ClusterOptions {

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "Brokers to learn the cluster from (Metadata); produce and consume go to the leaders they name.")
    String bootstrapServer;

    @Option(names = "--bootstrap-controller", paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "Controller nodes, for topic creation (and a describe with the topic's configs).")
    String bootstrapController;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "30000",
            description = "Bound on the command's requests (request.timeout.ms), at least 1 (default ${DEFAULT-VALUE}).")
    long timeoutMs;

    /** Checks the addresses and builds a client with these extra properties; bad input is a usage error (exit 2). */
    InsyncClient client(CommandSpec spec, boolean needsBrokers, Map<String, Object> extra) {
        if (needsBrokers && bootstrapServer == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--bootstrap-server=HOST:PORT'");
        }
        if (bootstrapServer == null && bootstrapController == null) {
            throw new ParameterException(spec.commandLine(),
                    "Missing required option: '--bootstrap-server=HOST:PORT' or '--bootstrap-controller=HOST:PORT'");
        }
        if (timeoutMs < 1 || timeoutMs > Integer.MAX_VALUE) {
            throw new ParameterException(spec.commandLine(), "--timeout-ms must be in 1.." + Integer.MAX_VALUE
                    + ", got " + timeoutMs);
        }
        Map<String, Object> props = new HashMap<>();
        if (bootstrapServer != null) {
            props.put(ClientConfig.BOOTSTRAP_SERVERS, bootstrapServer);
        }
        if (bootstrapController != null) {
            props.put(ClientConfig.BOOTSTRAP_CONTROLLERS, bootstrapController);
        }
        props.put(ClientConfig.REQUEST_TIMEOUT_MS, timeoutMs);
        props.put(ClientConfig.CLIENT_ID, "insync-cli");
        props.putAll(extra);
        try {
            ClientConfig.addresses(ClientConfig.BOOTSTRAP_SERVERS, bootstrapServer == null ? "" : bootstrapServer);
            ClientConfig.addresses(ClientConfig.BOOTSTRAP_CONTROLLERS, bootstrapController == null ? "" : bootstrapController);
            return InsyncClient.builder(props).build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
