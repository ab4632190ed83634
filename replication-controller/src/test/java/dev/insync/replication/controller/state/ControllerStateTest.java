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

package dev.insync.replication.controller.state;

import dev.insync.replication.controller.log.MetadataBatch;
import dev.insync.replication.controller.log.MetadataSnapshot;
import dev.insync.replication.controller.record.ConfigRecord;
import dev.insync.replication.controller.record.FenceBrokerRecord;
import dev.insync.replication.controller.record.LeaderRecoveryState;
import dev.insync.replication.controller.record.PartitionChangeRecord;
import dev.insync.replication.controller.record.PartitionRecord;
import dev.insync.replication.controller.record.RegisterBrokerRecord;
import dev.insync.replication.controller.record.TopicRecord;
import dev.insync.replication.controller.record.UnfenceBrokerRecord;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Replay refuses a log this controller could not have written, naming the offset (CTL-1, CTL-2). */
class ControllerStateTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);

    private static ControllerState withTopic() {
        ControllerState state = new ControllerState();
        state.replay(new MetadataBatch(0, List.of(RegisterBrokerRecord.newIncarnation(1, 0, -1, false))));
        state.replay(new MetadataBatch(1, List.of(new UnfenceBrokerRecord(1, 0))));
        state.replay(new MetadataBatch(2, List.of(new TopicRecord("t", 1), ConfigRecord.minInsyncReplicas("t", 1),
                ConfigRecord.uncleanLeaderElection("t", false),
                new PartitionRecord(TP, List.of(1), List.of(1), List.of(), List.of(), 1, 0, 0, LeaderRecoveryState.RECOVERED))));
        return state;
    }

    @Test
    @DisplayName("CTL-1 a batch replays to one delta at its last offset with the final state of what it touched")
    void batchDelta() {
        ControllerState state = withTopic();
        MetadataDelta delta = state.replay(new MetadataBatch(6, List.of(new FenceBrokerRecord(1, 0),
                new PartitionChangeRecord(TP, -1, 1, 1, List.of(), List.of(1), List.of(), LeaderRecoveryState.RECOVERED))));
        assertThat(delta.offset()).isEqualTo(7);
        assertThat(delta.brokers()).containsExactly(state.broker(1).registration());
        assertThat(delta.partitions()).containsExactly(state.partition(TP));
        assertThat(state.lastOffset()).isEqualTo(7);
    }

    @Test
    @DisplayName("CTL-1 replay refuses an offset gap, naming the offset, and the state is unusable afterwards")
    void gap() {
        ControllerState state = withTopic();
        assertThatThrownBy(() -> state.replay(8, new FenceBrokerRecord(1, 0)))
                .isInstanceOf(MetadataReplayException.class).hasMessageContaining("offset 8").hasMessageContaining("offset 5");
        assertThatThrownBy(state::canonicalDump).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("LDR-4 replay refuses a registration whose broker epoch is not its offset")
    void epochIsOffset() {
        ControllerState state = new ControllerState();
        assertThatThrownBy(() -> state.replay(0, RegisterBrokerRecord.newIncarnation(1, 3, -1, false)))
                .isInstanceOf(MetadataReplayException.class).hasMessageContaining("offset 0").hasMessageContaining("not its offset");
    }

    @Test
    @DisplayName("replay refuses records that do not fit: stale broker epoch, epochs that do not follow, unknown topic, incomplete topic")
    void misfits() {
        assertThatThrownBy(() -> withTopic().replay(6, new FenceBrokerRecord(1, 9)))
                .isInstanceOf(MetadataReplayException.class).hasMessageContaining("epoch 9 is not the current");
        assertThatThrownBy(() -> withTopic().replay(6, new PartitionChangeRecord(TP, 1, 0, 3, List.of(1), List.of(), List.of(),
                LeaderRecoveryState.RECOVERED))).hasMessageContaining("partition epoch 3 does not follow 0");
        assertThatThrownBy(() -> withTopic().replay(6, new PartitionChangeRecord(TP, -1, 0, 1, List.of(), List.of(), List.of(),
                LeaderRecoveryState.RECOVERED))).hasMessageContaining("needs leader epoch 1");
        assertThatThrownBy(() -> withTopic().replay(6, ConfigRecord.minInsyncReplicas("x", 2)))
                .hasMessageContaining("unknown topic x");
        assertThatThrownBy(() -> new ControllerState().replay(new MetadataBatch(0, List.of(new TopicRecord("u", 2)))))
                .hasMessageContaining("without its partition 0");
    }

    @Test
    @DisplayName("CTL-1 a snapshot that is not a whole state is refused naming the entry")
    void badSnapshot() {
        MetadataSnapshot duplicate = new MetadataSnapshot(5, List.of(RegisterBrokerRecord.newIncarnation(1, 0, -1, false),
                RegisterBrokerRecord.newIncarnation(1, 1, -1, false)));
        assertThatThrownBy(() -> ControllerState.load(duplicate)).hasMessageContaining("entry 1").hasMessageContaining("twice");
        MetadataSnapshot future = new MetadataSnapshot(0, List.of(RegisterBrokerRecord.newIncarnation(1, 4, -1, false)));
        assertThatThrownBy(() -> ControllerState.load(future)).hasMessageContaining("beyond the snapshot offset");
        MetadataSnapshot incomplete = new MetadataSnapshot(0, List.of(new TopicRecord("t", 1)));
        assertThatThrownBy(() -> ControllerState.load(incomplete)).hasMessageContaining("lacks partition 0");
    }

    @Test
    @DisplayName("CTL-1 copy and snapshot are independent of the original")
    void copies() {
        ControllerState state = withTopic();
        ControllerState copy = state.copy();
        state.replay(6, new FenceBrokerRecord(1, 0));
        assertThat(copy.broker(1).fenced()).isFalse();
        assertThat(copy.lastOffset()).isEqualTo(5);
        assertThat(ControllerState.load(copy.snapshot()).canonicalDump()).isEqualTo(copy.canonicalDump());
    }
}
