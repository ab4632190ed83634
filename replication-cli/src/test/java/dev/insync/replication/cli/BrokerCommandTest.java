package dev.insync.replication.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code insync broker --config FILE}: what it refuses (exit 2) before anything opens. The running process: {@link BrokerProcessTest}. */
class BrokerCommandTest {

    @TempDir
    Path dir;

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
    @DisplayName("A missing property is a bad configuration: exit 2, the property named, nothing on stdout, no directory created")
    void missingPropertyExitsTwo() throws Exception {
        Path logDir = dir.resolve("never-created");
        Path file = Files.writeString(dir.resolve("broker.properties"), String.join("\n",
                "node.id=1", "process.roles=broker", "listeners=PLAINTEXT://127.0.0.1:0", "log.dirs=" + logDir, ""));
        Run run = run("broker", "--config", file.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("bad configuration in " + file).contains("insync.controller.endpoints");
        assertThat(run.out()).isEmpty();
        assertThat(logDir).doesNotExist();
    }

    @Test
    @DisplayName("A bad value is a bad configuration: exit 2 naming it")
    void badValueExitsTwo() throws Exception {
        Path file = Files.writeString(dir.resolve("broker.properties"), String.join("\n",
                "node.id=1", "process.roles=broker,observer", "listeners=PLAINTEXT://127.0.0.1:0", ""));
        Run run = run("broker", "--config", file.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("process.roles").contains("observer");
    }

    @Test
    @DisplayName("An unreadable configuration file: exit 2 naming the file")
    void missingFileExitsTwo() {
        Path file = dir.resolve("nope.properties");
        Run run = run("broker", "--config", file.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(file.toString());
    }

    @Test
    @DisplayName("A listener that cannot bind is a runtime failure: exit 1, nothing on stdout")
    void bindFailureExitsOne() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            Path file = Files.writeString(dir.resolve("controller.properties"), String.join("\n",
                    "node.id=101", "process.roles=controller",
                    "listeners=PLAINTEXT://127.0.0.1:" + taken.getLocalPort(),
                    "controller.quorum.voters=101@127.0.0.1:" + freePort(),
                    "metadata.log.dir=" + dir.resolve("meta"), ""));
            Run run = run("broker", "--config", file.toString());
            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).contains("cannot start");
        }
    }

    @Test
    @DisplayName("The broker subcommand's help names the readiness line and the exit codes")
    void help() {
        Run run = run("broker", "--help");
        assertThat(run.exitCode()).isZero();
        Matcher m = Pattern.compile("insync: ready node\\.id=N roles=R listeners=L").matcher(run.out());
        assertThat(m.find()).isTrue();
        assertThat(run.out()).contains("0 clean stop, 1 runtime failure, 2 bad configuration");
    }

    private static int freePort() throws Exception {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }
}
