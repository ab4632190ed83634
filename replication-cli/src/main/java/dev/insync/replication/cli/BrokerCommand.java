package dev.insync.replication.cli;

import dev.insync.replication.server.InsyncServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code insync broker --config FILE}: runs one Insync server process, whatever its
 * {@code process.roles} says (a broker, a controller node, or both), until SIGTERM. docs/operations.md
 * lists the properties.
 *
 * <p>Standard output carries exactly one line, printed and flushed when the process serves:
 * {@code insync: ready node.id=<id> roles=<process.roles> listeners=<PROTOCOL://host:port>} (the
 * bound port, also when 0 was asked). Logs go to standard error.
 *
 * <p>SIGTERM (or SIGINT): a JVM shutdown hook runs the controlled shutdown (LDR-4: leadership moves
 * away, then a clean stop leaving {@code .kafka_cleanshutdown}) and ends the process with 0 if the
 * stop was clean, 1 if not (the controller did not answer within
 * {@code insync.controlled.shutdown.timeout.ms}). Exit codes: 0 clean stop; 1 a runtime failure (the
 * listener cannot bind, a log directory or the metadata log cannot open, the broker stopped by
 * itself, an unclean stop); 2 a bad configuration (an unreadable file, or a missing or bad property,
 * named on standard error) or a usage error.
 */
@Command(name = "broker",
        mixinStandardHelpOptions = true,
        description = {
            "Runs an Insync broker, controller node or both (process.roles) from a properties file, until SIGTERM.",
            "Prints one line 'insync: ready node.id=N roles=R listeners=L' on stdout when serving.",
            "Exit codes: 0 clean stop, 1 runtime failure, 2 bad configuration."})
public final class BrokerCommand implements java.util.concurrent.Callable<Integer> {

    /** Exit code of a bad configuration (as picocli's usage errors). */
    public static final int EXIT_BAD_CONFIG = 2;

    private static final String LOG_FILE_PROPERTY = "org.slf4j.simpleLogger.logFile";
    private static final String RATIS_LOG_LEVEL_PROPERTY = "org.slf4j.simpleLogger.log.org.apache.ratis";

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE",
            description = "The server's properties (Kafka's names: node.id, process.roles, listeners, log.dirs, ...).")
    private Path config;

    @Override
    public Integer call() {
        if (System.getProperty(LOG_FILE_PROPERTY) == null) {
            // stdout is the readiness line only; a harness reads it.
            System.setProperty(LOG_FILE_PROPERTY, "System.err");
        }
        if (System.getProperty(RATIS_LOG_LEVEL_PROPERTY) == null) {
            // Ratis logs every vote and heartbeat change at INFO.
            System.setProperty(RATIS_LOG_LEVEL_PROPERTY, "warn");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Map<String, String> props;
        try {
            props = load(config);
        } catch (IOException e) {
            err.println("insync broker: cannot read configuration file " + config + ": " + e);
            err.flush();
            return EXIT_BAD_CONFIG;
        }
        InsyncServer server;
        try {
            server = InsyncServer.builder(props).build();
        } catch (IllegalArgumentException e) {
            err.println("insync broker: bad configuration in " + config + ": " + e.getMessage());
            err.flush();
            return EXIT_BAD_CONFIG;
        }
        AtomicBoolean exiting = new AtomicBoolean();
        Thread hook = new Thread(() -> {
            if (exiting.getAndSet(true)) {
                return; // the command is ending on its own and has chosen its exit code
            }
            boolean clean = server.controlledShutdown();
            err.println("insync broker: node " + server.nodeId() + " stopped " + (clean ? "cleanly" : "NOT cleanly"));
            err.flush();
            out.flush();
            // The signal's own status would be 143; a harness wants to know whether the stop was clean.
            Runtime.getRuntime().halt(clean ? 0 : InsyncCli.EXIT_FAILURE);
        }, "insync-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            server.start().get();
            out.println(server.readinessLine());
            out.flush();
            server.stopped().get();
            // Stopped without a signal: only a failure stops a server by itself.
            return InsyncCli.EXIT_FAILURE;
        } catch (ExecutionException e) {
            if (!exiting.getAndSet(true)) {
                err.println("insync broker: node " + server.nodeId() + " failed: " + e.getCause());
                err.flush();
                server.close();
                return InsyncCli.EXIT_FAILURE;
            }
            return waitForHook();
        } catch (RuntimeException e) {
            if (!exiting.getAndSet(true)) {
                err.println("insync broker: node " + server.nodeId() + " cannot start: " + e);
                err.flush();
                server.close();
                return InsyncCli.EXIT_FAILURE;
            }
            return waitForHook();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return InsyncCli.EXIT_FAILURE;
        } finally {
            if (exiting.compareAndSet(false, true)) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // Shutting down already; the hook has returned at once.
                }
            }
        }
    }

    /** Bound of the wait for a signal's hook, which ends the process itself. */
    static final long HOOK_WAIT_MS = 120_000L;

    /** A signal's hook is stopping the server and will end the process with its own code. */
    private static int waitForHook() {
        try {
            Thread.sleep(HOOK_WAIT_MS); // the hook halts the JVM first; this only bounds the wait
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return InsyncCli.EXIT_FAILURE;
    }

    /** Reads a Java properties file, values trimmed. */
    static Map<String, String> load(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("not a readable file");
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            m.put(name, p.getProperty(name).trim());
        }
        return m;
    }
}
