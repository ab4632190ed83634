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

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** The top-level {@code insync} command: help, version and exit codes. */
class InsyncCliTest {

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = InsyncCli.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    @DisplayName("--help lists the subcommands and exits 0")
    void help() {
        Run run = run("--help");
        assertThat(run.out()).contains("Usage: insync").contains("dump-log");
        assertThat(run.exitCode()).isZero();
    }

    @Test
    @DisplayName("--version prints the build's project version and exits 0")
    void version() {
        Run run = run("--version");
        assertThat(run.out().strip()).matches("insync \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
        assertThat(run.exitCode()).isZero();
    }

    @Test
    @DisplayName("no subcommand or an unknown one is a usage error: message and usage on stderr, exit 2")
    void usageErrors() {
        Run none = run();
        assertThat(none.err()).contains("Missing required subcommand").contains("Usage: insync");
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(run("no-such-command").exitCode()).isEqualTo(2);
    }

    @Test
    @DisplayName("an unknown subcommand with --help is still a usage error: message on stderr, exit 2, not the root usage on stdout")
    void unknownCommandWithHelp() {
        Run run = run("nosuchcommand", "--help");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Unmatched argument").contains("nosuchcommand");
        assertThat(run.out()).isEmpty();
        Run sub = run("simulate", "nosuchargument", "--help");
        assertThat(sub.exitCode()).isEqualTo(2);
        assertThat(sub.err()).contains("nosuchargument");
    }

    @Test
    @DisplayName("dump-log --help describes the command and exits 0")
    void subcommandHelp() {
        Run run = run("dump-log", "--help");
        assertThat(run.out()).contains("Usage: insync dump-log").contains("--print-data-log").contains("--deep-iteration");
        assertThat(run.exitCode()).isZero();
    }
}
