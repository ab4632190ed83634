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

package dev.insync.replication.cli;

import dev.insync.replication.cli.client.ConsumeCommand;
import dev.insync.replication.cli.client.ProduceCommand;
import dev.insync.replication.cli.client.TopicsCommand;
import dev.insync.replication.cli.dump.DumpLogCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The {@code insync} command line: the runnable face of the library. Each tool is a picocli
 * {@code @Command} class listed in {@code subcommands} below; adding a tool means writing its class
 * and adding it to that list, nothing else.
 *
 * <p>Exit codes, for every subcommand: 0 when the command did what was asked and found nothing
 * wrong; 1 when it reports a violation or failure (a corrupt segment, a missing file, a broken
 * invariant); 2 for a usage error (picocli's default for bad options and arguments, and for
 * {@code insync} without a subcommand).
 */
@Command(name = "insync",
        mixinStandardHelpOptions = true,
        versionProvider = InsyncCli.Version.class,
        description = "Kafka-style partition replication as a library: tools and demos.",
        subcommands = {
                ScenarioCommand.class,
                SimulateCommand.class,
                DumpLogCommand.class,
                BrokerCommand.class,
                TopicsCommand.class,
                ProduceCommand.class,
                ConsumeCommand.class,
                ChaosCommand.class,
        })
public final class InsyncCli implements Runnable {

    /** Exit code of a command that reports a violation or a failure. */
    public static final int EXIT_FAILURE = 1;

    @Spec
    private CommandSpec spec;

    /** Runs the command line and exits the JVM with its exit code. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The {@code insync} command line as {@link #main} runs it. Picocli lets {@code --help} win over
     * an argument it could not match ({@code insync nosuchcommand --help} printed the root usage and
     * exited 0); here any unmatched argument is a usage error (exit 2), help requested or not.
     */
    public static CommandLine commandLine() {
        CommandLine cmd = new CommandLine(new InsyncCli());
        CommandLine.IExecutionStrategy runLast = new CommandLine.RunLast();
        cmd.setExecutionStrategy(parseResult -> {
            for (CommandLine.ParseResult pr = parseResult; pr != null; pr = pr.subcommand()) {
                if (!pr.unmatched().isEmpty()) {
                    throw new CommandLine.UnmatchedArgumentException(pr.commandSpec().commandLine(), pr.unmatched());
                }
            }
            return runLast.execute(parseResult);
        });
        return cmd;
    }

    /** {@code insync} alone is a usage error: a subcommand is required. */
    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /**
     * The version from {@code insync-version.properties}, which Maven fills in from the project
     * version at build time, falling back to the jar manifest's Implementation-Version.
     */
    static final class Version implements CommandLine.IVersionProvider {
        static final String RESOURCE = "/insync-version.properties";

        @Override
        public String[] getVersion() {
            return new String[] {"insync " + version()};
        }

        static String version() {
            try (InputStream in = InsyncCli.class.getResourceAsStream(RESOURCE)) {
                if (in != null) {
                    Properties props = new Properties();
                    props.load(in);
                    String v = props.getProperty("version");
                    if (v != null && !v.isBlank() && !v.startsWith("${")) {
                        return v;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read " + RESOURCE + " from the insync jar", e);
            }
            String fromManifest = InsyncCli.class.getPackage().getImplementationVersion();
            return fromManifest != null ? fromManifest : "(unknown version)";
        }
    }
}
