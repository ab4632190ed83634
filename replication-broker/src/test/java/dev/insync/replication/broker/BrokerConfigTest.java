package dev.insync.replication.broker;

import dev.insync.replication.controller.api.ControllerApi;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BrokerConfigTest {

    @Test
    @DisplayName("Kafka-named properties: node.id, log.dirs (or log.dir), retention check, controller backoffs, and every replication setting")
    void parses() {
        BrokerConfig config = BrokerConfig.fromProperties(Map.of(
                "node.id", "3",
                "log.dirs", "/d1/insync, /d2/insync",
                "log.retention.check.interval.ms", 1000,
                "retry.backoff.ms", 50,
                "retry.backoff.max.ms", "500",
                "replica.lag.time.max.ms", 10_000,
                "broker.heartbeat.interval.ms", 1000,
                "broker.session.timeout.ms", 6000,
                "segment.bytes", 4096));
        assertThat(config.nodeId()).isEqualTo(3);
        assertThat(config.logDirs()).containsExactly(Path.of("/d1/insync"), Path.of("/d2/insync"));
        assertThat(config.logRetentionCheckIntervalMs()).isEqualTo(1000);
        assertThat(config.retryBackoffMs()).isEqualTo(50);
        assertThat(config.retryBackoffMaxMs()).isEqualTo(500);
        assertThat(config.replication().replicaLagTimeMaxMs()).isEqualTo(10_000);
        assertThat(config.replication().brokerHeartbeatIntervalMs()).isEqualTo(1000);
        assertThat(config.replication().brokerSessionTimeoutMs()).isEqualTo(6000);
        assertThat(config.replication().logConfig().segmentBytes()).isEqualTo(4096);
        assertThat(config.ignoredProperties()).as("the broker's own names are not passed on as unknown").isEmpty();

        BrokerConfig defaults = BrokerConfig.fromProperties(Map.of("node.id", 0, "log.dir", "/data"));
        assertThat(defaults.logDirs()).containsExactly(Path.of("/data"));
        assertThat(defaults.logRetentionCheckIntervalMs()).isEqualTo(BrokerConfig.DEFAULT_LOG_RETENTION_CHECK_INTERVAL_MS);
        assertThat(defaults.retryBackoffMs()).isEqualTo(100);
        assertThat(defaults.retryBackoffMaxMs()).isEqualTo(1000);
    }

    @Test
    @DisplayName("a missing or bad property is refused with its name")
    void badInput() {
        assertThatThrownBy(() -> BrokerConfig.fromProperties(Map.of("log.dirs", "/d")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node.id");
        assertThatThrownBy(() -> BrokerConfig.fromProperties(Map.of("node.id", 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("log.dirs");
        assertThatThrownBy(() -> BrokerConfig.fromProperties(Map.of("node.id", "one", "log.dirs", "/d")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node.id");
        assertThatThrownBy(() -> BrokerConfig.fromProperties(Map.of("node.id", -1, "log.dirs", "/d")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node.id");
        assertThatThrownBy(() -> BrokerConfig.fromProperties(Map.of("node.id", 1, "log.dirs", "/d,,/e")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("log.dirs");
        assertThatThrownBy(() -> BrokerConfig.fromProperties(Map.of("node.id", 1, "log.dirs", "/d,/d/")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> BrokerConfig.fromProperties(Map.of("node.id", 1, "log.dirs", "/d", "retry.backoff.ms", 2000)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retry.backoff");
        assertThatThrownBy(() -> BrokerConfig.fromProperties(Map.of("node.id", 1, "log.dirs", "/d",
                "log.retention.check.interval.ms", -5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("log.retention.check.interval.ms");
        assertThatThrownBy(() -> BrokerConfig.fromProperties(Map.of("node.id", 1, "log.dirs", "/d",
                "replica.lag.time.max.ms", "soon")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replica.lag.time.max.ms");
    }

    @Test
    @DisplayName("a broker needs a transport and the controller; it starts once, and a restart is a new InsyncBroker")
    void builderRequirements() {
        Map<String, Object> props = Map.of("node.id", 1, "log.dirs", "/nonexistent-insync-test");
        assertThatThrownBy(() -> InsyncBroker.builder(props).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("transport");
        assertThatThrownBy(() -> InsyncBroker.builder(props)
                .transport((leader, request) -> new CompletableFuture<>()).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("controller");
        assertThatThrownBy(() -> InsyncBroker.builder(props).controllerEndpoints(Map.of()))
                .isInstanceOf(IllegalArgumentException.class);
        ControllerApi unused = (ControllerApi) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ControllerApi.class}, (proxy, method, args) -> new CompletableFuture<>());
        InsyncBroker broker = InsyncBroker.builder(props).transport((leader, request) -> new CompletableFuture<>())
                .controllerEndpoints(Map.of(0, unused)).build();
        assertThat(broker.state()).isEqualTo(InsyncBroker.State.NOT_STARTED);
        assertThatThrownBy(broker::replicaManager).isInstanceOf(IllegalStateException.class).hasMessageContaining("not started");
        broker.close();
        assertThat(broker.state()).isEqualTo(InsyncBroker.State.STOPPED);
        assertThatThrownBy(broker::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("new InsyncBroker");
    }
}
