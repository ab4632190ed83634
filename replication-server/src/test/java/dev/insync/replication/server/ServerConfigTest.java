package dev.insync.replication.server;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServerConfigTest {

    private static Map<String, Object> broker() {
        Map<String, Object> p = new HashMap<>();
        p.put("node.id", "1");
        p.put("process.roles", "broker");
        p.put("listeners", "PLAINTEXT://127.0.0.1:9092");
        p.put("log.dirs", "/tmp/insync-config-test/b1");
        p.put("insync.controller.endpoints", "101@127.0.0.1:9093");
        p.put("insync.broker.addresses", "1@127.0.0.1:9092,2@127.0.0.1:9094");
        return p;
    }

    private static Map<String, Object> with(Map<String, Object> p, String name, Object value) {
        if (value == null) {
            p.remove(name);
        } else {
            p.put(name, value);
        }
        return p;
    }

    @Test
    void aBrokerProcessParses() {
        ServerConfig c = ServerConfig.fromProperties(with(broker(), "insync.connect.overrides", "2@127.0.0.1:41002"));
        assertThat(c.roles()).containsExactly(ProcessRole.BROKER);
        assertThat(c.listener()).isEqualTo(new Listener("PLAINTEXT", "127.0.0.1", 9092));
        assertThat(c.broker()).isPresent();
        assertThat(c.controller()).isEmpty();
        assertThat(c.rolesString()).isEqualTo("broker");
    }

    @Test
    @DisplayName("insync.connect.overrides wins over the address tables, for brokers and controllers alike")
    void overridesWinForEveryLink() {
        ServerConfig c = ServerConfig.fromProperties(with(broker(), "insync.connect.overrides",
                "2@127.0.0.1:41002,101@127.0.0.1:41101"));
        assertThat(c.dialAddressOfBroker(2)).hasValue(InetSocketAddress.createUnresolved("127.0.0.1", 41002));
        assertThat(c.dialAddressOfBroker(1)).hasValue(InetSocketAddress.createUnresolved("127.0.0.1", 9092));
        assertThat(c.dialAddressOfController(101)).hasValue(InetSocketAddress.createUnresolved("127.0.0.1", 41101));
        assertThat(c.dialAddressOfBroker(3)).isEmpty();
    }

    @Test
    void aCombinedProcessRunsBothRoles() {
        Map<String, Object> p = with(broker(), "process.roles", "broker,controller");
        p.put("controller.quorum.voters", "1@127.0.0.1:9193");
        p.put("metadata.log.dir", "/tmp/insync-config-test/m1");
        p.put("insync.controller.endpoints", "1@127.0.0.1:9092");
        ServerConfig c = ServerConfig.fromProperties(p);
        assertThat(c.roles()).isEqualTo(Set.of(ProcessRole.BROKER, ProcessRole.CONTROLLER));
        assertThat(c.controller().orElseThrow().nodeId()).isEqualTo(1);
        assertThat(c.rolesString()).isEqualTo("broker,controller");
    }

    @Test
    @DisplayName("Every bad configuration is refused naming its property")
    void badConfigurationsNameTheProperty() {
        assertRefused(with(broker(), "node.id", null), "node.id");
        assertRefused(with(broker(), "node.id", "x"), "node.id");
        assertRefused(with(broker(), "process.roles", null), "process.roles");
        assertRefused(with(broker(), "process.roles", "broker,observer"), "process.roles");
        assertRefused(with(broker(), "listeners", null), "listeners");
        assertRefused(with(broker(), "advertised.listeners", "PLAINTEXT://h:1"), "advertised.listeners");
        assertRefused(with(broker(), "listeners", "SASL_SSL://127.0.0.1:9092"), "listeners");
        assertRefused(with(broker(), "listeners", "PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.1:9093"), "listeners");
        assertRefused(with(broker(), "listeners", "PLAINTEXT://127.0.0.1:port"), "listeners");
        assertRefused(with(broker(), "log.dirs", null), "log.dirs");
        assertRefused(with(broker(), "insync.controller.endpoints", null), "insync.controller.endpoints");
        assertRefused(with(broker(), "insync.controller.endpoints", "101@127.0.0.1"), "insync.controller.endpoints");
        assertRefused(with(broker(), "insync.broker.addresses", "1@127.0.0.1:9092,1@127.0.0.1:9094"),
                "insync.broker.addresses");
        assertRefused(with(broker(), "insync.connect.overrides", "two@127.0.0.1:1"), "insync.connect.overrides");
        assertRefused(with(broker(), "insync.controlled.shutdown.timeout.ms", "0"), "insync.controlled.shutdown.timeout.ms");
        assertRefused(with(broker(), "security.protocol", "SSL"), "security.protocol");
        assertRefused(with(broker(), "replica.lag.time.max.ms", "soon"), "replica.lag.time.max.ms");
        assertRefused(with(broker(), "socket.request.max.bytes", "1"), "socket.request.max.bytes");
        // One id, one process: a broker and a controller entry of one id must be the same listener.
        assertRefused(with(broker(), "insync.controller.endpoints", "1@127.0.0.1:9999"), "insync.broker.addresses");
        Map<String, Object> controller = with(broker(), "process.roles", "controller");
        assertRefused(controller, "controller.quorum.voters");
    }

    private static void assertRefused(Map<String, Object> props, String property) {
        assertThatThrownBy(() -> ServerConfig.fromProperties(props))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(property);
    }

    @Test
    void addressTablesRoundTrip() {
        NodeAddresses a = NodeAddresses.parse("x", "2@h2:2, 1@[::1]:1");
        assertThat(a.asMap().keySet()).containsExactly(1, 2);
        assertThat(a.address(1).orElseThrow().getHostString()).isEqualTo("::1");
        assertThat(NodeAddresses.parse("x", a.toString().replace("::1", "[::1]"))).isEqualTo(a);
        assertThat(NodeAddresses.parse("x", " ")).isEqualTo(NodeAddresses.EMPTY);
        assertThat(Listener.parse("ssl://0.0.0.0:0")).isEqualTo(new Listener("SSL", "0.0.0.0", 0));
    }
}
