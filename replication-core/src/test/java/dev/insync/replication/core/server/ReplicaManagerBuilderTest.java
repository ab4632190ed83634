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

package dev.insync.replication.core.server;

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.fetcher.ManualScheduler;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.log.LogDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReplicaManagerBuilderTest {

    @TempDir
    Path tmp;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<LogDirectory> opened = new ArrayList<>();
    private final ReplicaTransport transport = (leaderId, request) -> new CompletableFuture<>();
    private final ControllerChannel controller = new ControllerChannel() {
        @Override
        public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
            return new CompletableFuture<>();
        }

        @Override
        public CompletionStage<Long> registerBroker(int brokerId, long previousBrokerEpoch,
                                                  java.util.List<dev.insync.replication.core.metadata.Endpoint> endpoints) {
            return new CompletableFuture<>();
        }

        @Override
        public CompletionStage<HeartbeatResponse> heartbeat(HeartbeatRequest request) {
            return new CompletableFuture<>();
        }
    };

    private LogDirectory dir(String name) {
        LogDirectory d = LogDirectory.open(tmp.resolve(name), ReplicationConfig.defaults().logConfig());
        opened.add(d);
        return d;
    }

    @AfterEach
    void close() {
        opened.forEach(LogDirectory::close);
    }

    private ReplicaManager.Builder complete(LogDirectory d) {
        return ReplicaManager.builder(1).logDirectory(d).scheduler(scheduler).transport(transport)
                .controller(controller).brokerEpoch(() -> 7L);
    }

    @Test
    void aCompleteBuilderBuildsWithDefaults() {
        ReplicaManager rm = complete(dir("d1")).build();
        assertThat(rm.brokerId()).isEqualTo(1);
        assertThat(rm.logDirectories()).hasSize(1);
        assertThat(rm.hostedPartitions()).isEmpty();
    }

    @Test
    void aMissingRequiredSettingIsNamed() {
        assertThatThrownBy(() -> ReplicaManager.builder(1).logDirectory(dir("d2")).transport(transport)
                .controller(controller).brokerEpoch(() -> 7L).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("broker 1").hasMessageContaining("scheduler");
        assertThatThrownBy(() -> ReplicaManager.builder(2).scheduler(scheduler).transport(transport)
                .controller(controller).brokerEpoch(() -> 7L).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("logDirectories");
    }

    @Test
    void badLogDirectoriesAndBrokerIdsAreRefused() {
        LogDirectory d = dir("d3");
        assertThatThrownBy(() -> complete(d).logDirectories(List.of(d, d)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> complete(d).logDirectories(List.of()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one");
        assertThatThrownBy(() -> ReplicaManager.builder(-1).logDirectory(d).scheduler(scheduler).transport(transport)
                .controller(controller).brokerEpoch(() -> 7L).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    }
}
