package dev.insync.replication.cli;

import dev.insync.replication.testkit.history.History;
import dev.insync.replication.testkit.history.HistoryEvent;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SimulateCommandTest {

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new SimulateCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    @DisplayName("INV-6 simulate prints one line per seed and a summary, and writes each history as <seed>.jsonl")
    void runsSeedsAndWritesHistories(@TempDir Path dir) throws IOException {
        Run run = run("--seeds", "4-5", "--duration-s", "10", "--history", dir.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).matches("seed=4 events=\\d+ acked=\\d+ violations=0");
        assertThat(lines.get(1)).matches("seed=5 events=\\d+ acked=\\d+ violations=0");
        assertThat(lines.get(2)).matches("seeds=2 violations=0 acked=\\d+ lost-acks1=\\d+ simulated-seconds=\\d+ wall-seconds=.*");
        History history = History.parse(Files.readString(dir.resolve("4.jsonl")));
        assertThat(history.events().get(0)).isInstanceOf(HistoryEvent.Config.class);
        assertThat(history.events()).filteredOn(HistoryEvent.Final.class::isInstance).hasSize(3);

        // The same seed again gives the same file, byte for byte.
        Path again = dir.resolve("again");
        assertThat(run("--seeds", "4", "--duration-s", "10", "--history", again.toString()).exitCode()).isZero();
        assertThat(Files.readString(again.resolve("4.jsonl"))).isEqualTo(Files.readString(dir.resolve("4.jsonl")));
    }

    @Test
    @DisplayName("simulate --json prints one JSON object per seed and one summary object")
    void jsonOutput() {
        Run run = run("--seeds", "2", "--duration-s", "5", "--faults", "none", "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out().lines().toList()).satisfiesExactly(
                l -> assertThat(l).startsWith("{\"seed\":2,").contains("\"violations\":[]"),
                l -> assertThat(l).startsWith("{\"seeds\":1,\"violations\":0,"));
    }

    @Test
    @DisplayName("simulate refuses a bad seed range or fault kind with a usage error")
    void usageErrors() {
        assertThat(run("--seeds", "9-3").exitCode()).isEqualTo(2);
        assertThat(run("--seeds", "x").exitCode()).isEqualTo(2);
        assertThat(run("--seeds", "1", "--faults", "meteor").exitCode()).isEqualTo(2);
    }
}
