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

package dev.insync.replication.log;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopicPartitionTest {

    @Test
    @DisplayName("LOG-2 a topic name that could not be a directory name (empty, '/', '\\', whitespace) is refused; dashes and dots are fine")
    void log2TopicNamesThatNameADirectory() {
        for (String bad : new String[]{"", "a/b", "a\\b", "a b", "tab\t", "line\n", "\u2003em-space"}) {
            assertThatThrownBy(() -> new TopicPartition(bad, 0)).as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Invalid topic name");
        }
        assertThat(new TopicPartition("orders.v2-eu", 3).toString()).isEqualTo("orders.v2-eu-3");
        assertThat(TopicPartition.parse("orders.v2-eu-3")).isEqualTo(new TopicPartition("orders.v2-eu", 3));
        assertThatThrownBy(() -> new TopicPartition("t", -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Negative partition -1");
    }
}
