package dev.insync.replication.controller.ratis;

import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class RatisSmokeTest {
    @TempDir
    Path dir;

    @Test
    void smoke() throws Exception {
        long t0 = System.nanoTime();
        try (RatisQuorum q = new RatisQuorum(dir, 3, Map.of()).startAll()) {
            RatisControllerNode active = q.awaitActive(10_000);
            System.out.println("active " + active.nodeId() + " after " + (System.nanoTime() - t0) / 1_000_000);
            long e1 = active.controllerApi().registerBroker(new RegisterBrokerRequest(1, -1)).toCompletableFuture().get(5, TimeUnit.SECONDS).brokerEpoch();
            active.controllerApi().brokerHeartbeat(new dev.insync.replication.core.metadata.HeartbeatRequest(1, e1, e1, false)).toCompletableFuture().get(5, TimeUnit.SECONDS);
            active.controllerApi().createTopic(CreateTopicRequest.withAssignment("t", List.of(List.of(1)), Map.of()))
                    .toCompletableFuture().get(5, TimeUnit.SECONDS);
            long end = active.controller().committedOffset();
            q.awaitCommitted(end, 5000);
            String d = RatisQuorum.dump(active);
            for (RatisControllerNode n : q.nodes.values()) {
                assertThat(RatisQuorum.dump(n)).isEqualTo(d);
            }
            System.out.println("epoch " + e1 + " end " + end + " dump\n" + d);
            long t1 = System.nanoTime();
            q.close();
            System.out.println("close " + (System.nanoTime() - t1) / 1_000_000);
        }
    }
}
