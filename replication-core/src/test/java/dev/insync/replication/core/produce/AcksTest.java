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

package dev.insync.replication.core.produce;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AcksTest {

    @Test
    @DisplayName("PRO-1 acks 0, 1 and -1 are Kafka's wire values of NONE, LEADER and ALL, both ways")
    void pro1WireValues() {
        assertThat(Acks.forCode(0)).isEqualTo(Acks.NONE);
        assertThat(Acks.forCode(1)).isEqualTo(Acks.LEADER);
        assertThat(Acks.forCode(-1)).isEqualTo(Acks.ALL);
        for (Acks acks : Acks.values()) {
            assertThat(Acks.forCode(acks.code())).isEqualTo(acks);
        }
    }

    @Test
    @DisplayName("PRO-1 any other acks value is INVALID_REQUIRED_ACKS, naming the value")
    void pro1InvalidAcks() {
        for (int bad : new int[] {2, -2, 3, Short.MAX_VALUE, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> Acks.forCode(bad)).isInstanceOf(ApiException.class)
                    .hasMessageContaining(String.valueOf(bad))
                    .satisfies(e -> assertThat(((ApiException) e).error()).isEqualTo(Errors.INVALID_REQUIRED_ACKS));
        }
    }
}
