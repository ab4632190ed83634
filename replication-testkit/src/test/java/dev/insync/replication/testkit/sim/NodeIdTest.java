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

package dev.insync.replication.testkit.sim;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeIdTest {

    @Test
    @DisplayName("a node kind is a non-empty name without whitespace; brokers, clients and the controller are told apart")
    void kindIsValidated() {
        assertThat(NodeId.broker(2)).isEqualTo(new NodeId(NodeId.BROKER, 2));
        assertThat(NodeId.broker(2).isBroker()).isTrue();
        assertThat(NodeId.client(2).isBroker()).isFalse();
        assertThat(NodeId.CONTROLLER.isBroker()).isFalse();
        for (String bad : new String[] {"", " ", "two words", "tab\there", "newline\n", "\u2003em-space"}) {
            assertThatThrownBy(() -> new NodeId(bad, 1)).as("kind '%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Invalid node kind");
        }
        assertThatThrownBy(() -> new NodeId(null, 1)).isInstanceOf(NullPointerException.class);
    }
}
