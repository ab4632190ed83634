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
        Map<String, Object> p = with(broker(), "insync.connect.overrides", "2@127.0.0.1:41002,101@127.0.0.1:41101");
        p.put("insync.broker.addresses", "1@127.0.0.1:9092,2@127.0.0.1:9094");
        ServerConfig c = ServerConfig.fromProperties(p);
        assertThat(c.dialAddressOfBroker(2)).hasValue(InetSocketAddress.createUnresolved("127.0.0.1", 41002));
        assertThat(c.dialAddressOfBroker(1)).hasValue(InetSocketAddress.createUnresolved("127.0.0.1", 9092));
        assertThat(c.dialAddressOfController(101)).hasValue(InetSocketAddress.createUnresolved("127.0.0.1", 41101));
        assertThat(c.dialAddressOfBroker(3)).isEmpty();
    }

    @Test
    @DisplayName("LDR-4 a broker advertises advertised.listeners, else listeners as bound; without insync.broker.addresses it is told no broker's address")
    void advertisedListeners() {
        ServerConfig plain = ServerConfig.fromProperties(broker());
        assertThat(plain.brokerAddresses().isEmpty()).isTrue();
        assertThat(plain.dialAddressOfBroker(2)).as("left to the registrations").isEmpty();
        Listener bound = plain.listener().withPort(41000);
        assertThat(plain.advertised(bound)).isEqualTo(bound);
        assertThat(plain.advertised(bound).endpoint())
                .isEqualTo(new dev.insync.replication.core.metadata.Endpoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 41000));

        Map<String, Object> p = with(broker(), "listeners", "PLAINTEXT://0.0.0.0:0");
        p.put("advertised.listeners", "PLAINTEXT://broker-1.example:19092");
        ServerConfig wildcard = ServerConfig.fromProperties(p);
        assertThat(wildcard.advertised(wildcard.listener().withPort(5))).isEqualTo(
                new Listener("PLAINTEXT", "broker-1.example", 19092));
        // Nobody can dial 0.0.0.0, so a broker must name what it advertises (Kafka refuses it too).
        assertRefused(with(broker(), "listeners", "PLAINTEXT://0.0.0.0:9092"), "advertised.listeners");
        assertRefused(with(with(broker(), "listeners", "PLAINTEXT://0.0.0.0:9092"), "advertised.listeners",
                "PLAINTEXT://0.0.0.0:9092"), "advertised.listeners");
        // A file written for the deprecated table: this node's own entry was its advertised address.
        Map<String, Object> legacy = with(broker(), "listeners", "PLAINTEXT://0.0.0.0:9092");
        legacy.put("insync.broker.addresses", "1@broker-1.example:9092,2@broker-2.example:9092");
        ServerConfig old = ServerConfig.fromProperties(legacy);
        assertThat(old.advertised(old.listener())).isEqualTo(new Listener("PLAINTEXT", "broker-1.example", 9092));
        assertRefused(with(broker(), "advertised.listeners", "SSL://h:1"), "advertised.listeners");
        assertRefused(with(broker(), "advertised.listeners", "PLAINTEXT://h:0"), "advertised.listeners");
        assertRefused(with(broker(), "advertised.listeners", "PLAINTEXT://h:1,PLAINTEXT://g:2"), "advertised.listeners");
        // A controller-only process advertises nothing: binding every interface is fine there.
        Map<String, Object> controller = with(broker(), "process.roles", "controller");
        controller.put("listeners", "PLAINTEXT://0.0.0.0:0");
        controller.put("controller.quorum.voters", "1@127.0.0.1:9193");
        controller.put("metadata.log.dir", "/tmp/insync-config-test/m1");
        assertThat(ServerConfig.fromProperties(controller).has(ProcessRole.BROKER)).isFalse();
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
        assertRefused(with(with(broker(), "insync.broker.addresses", "1@127.0.0.1:9092"), "insync.controller.endpoints",
                "1@127.0.0.1:9999"), "insync.broker.addresses");
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
