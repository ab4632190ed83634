package dev.insync.replication.cli.client;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import static dev.insync.replication.cli.client.ClientCommandsTest.run;
import static org.assertj.core.api.Assertions.assertThat;

/** Bad input to topics, produce and consume: a clear message and exit 2, before any connection. */
class ClientCommandsUsageTest {

    private static void usage(String expectedMessage, String... args) {
        ClientCommandsTest.Run r = run(args);
        assertThat(r.exitCode()).as(String.join(" ", args) + " -> " + r).isEqualTo(2);
        assertThat(r.err()).contains(expectedMessage);
    }

    @Test
    @DisplayName("topics: neither or both of --create/--describe, --create without topic, partitions or RF, a --config that is not NAME=VALUE, a bad address, no address")
    void topics() {
        usage("--create", "topics", "--bootstrap-server", "h:1");
        usage("mutually exclusive", "topics", "--bootstrap-server", "h:1", "--create", "--describe");
        usage("--create needs --topic", "topics", "--bootstrap-controller", "h:1", "--create", "--partitions", "1",
                "--replication-factor", "1");
        usage("--partitions", "topics", "--bootstrap-controller", "h:1", "--create", "--topic", "t",
                "--partitions", "0", "--replication-factor", "1");
        usage("--replication-factor", "topics", "--bootstrap-controller", "h:1", "--create", "--topic", "t",
                "--partitions", "1");
        usage("not NAME=VALUE", "topics", "--bootstrap-controller", "h:1", "--create", "--topic", "t",
                "--partitions", "1", "--replication-factor", "1", "--config", "min.insync.replicas");
        usage("Invalid topic name", "topics", "--bootstrap-controller", "h:1", "--create", "--topic", "a/b",
                "--partitions", "1", "--replication-factor", "1");
        usage("not host:port", "topics", "--bootstrap-server", "nohostport", "--describe");
        usage("--bootstrap-server", "topics", "--describe", "--topic", "t");
        usage("go with --create", "topics", "--bootstrap-server", "h:1", "--describe", "--partitions", "3");
        usage("'x'", "topics", "--bootstrap-server", "h:1", "--describe", "--timeout-ms", "x");
    }

    @Test
    @DisplayName("PRO-1 produce: --acks other than 0/1/-1/all, no --topic, a negative --count, a bad port, no --bootstrap-server")
    void produce() {
        usage("acks", "produce", "--bootstrap-server", "h:1", "--topic", "t", "--acks", "2", "--count", "1");
        usage("--topic", "produce", "--bootstrap-server", "h:1", "--count", "1");
        usage("--count", "produce", "--bootstrap-server", "h:1", "--topic", "t", "--count", "-1");
        usage("h:99999", "produce", "--bootstrap-server", "h:99999", "--topic", "t", "--count", "1");
        usage("--bootstrap-server", "produce", "--bootstrap-controller", "h:1", "--topic", "t", "--count", "1");
        usage("linger.ms", "produce", "--bootstrap-server", "h:1", "--topic", "t", "--count", "1", "--linger-ms", "-5");
    }

    @Test
    @DisplayName("consume: --offset without --partition, --max-records 0, both --from-beginning and --offset, a bad --idle-timeout-ms")
    void consume() {
        usage("--offset needs --partition", "consume", "--bootstrap-server", "h:1", "--topic", "t", "--offset", "3");
        usage("--max-records", "consume", "--bootstrap-server", "h:1", "--topic", "t", "--from-beginning",
                "--max-records", "0");
        usage("mutually exclusive", "consume", "--bootstrap-server", "h:1", "--topic", "t", "--from-beginning",
                "--offset", "1", "--partition", "0");
        usage("--idle-timeout-ms", "consume", "--bootstrap-server", "h:1", "--topic", "t", "--idle-timeout-ms", "0");
    }

    @Test
    @DisplayName("NET-2 nothing listening at --bootstrap-server: a failure naming it (exit 1), not a usage error")
    void unreachable() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        ClientCommandsTest.Run r = run("topics", "--bootstrap-server", "127.0.0.1:" + port, "--describe",
                "--timeout-ms", "2000");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).contains("127.0.0.1:" + port);
        ClientCommandsTest.Run c = run("topics", "--bootstrap-controller", "127.0.0.1:" + port, "--create", "--topic", "t",
                "--partitions", "1", "--replication-factor", "1", "--timeout-ms", "2000");
        assertThat(c.exitCode()).as(c.toString()).isEqualTo(1);
        assertThat(c.err()).contains("Cannot create topic t");
    }
}
