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

package dev.insync.replication.core.metadata;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EndpointTest {

    private static Endpoint plaintext(String host, int port) {
        return new Endpoint("PLAINTEXT", "PLAINTEXT", host, port);
    }

    @Test
    @DisplayName("LDR-4 an endpoint a registration carries is dialable: a real port, names and host non-empty and bounded")
    void fieldsAreChecked() {
        assertThat(plaintext("127.0.0.1", 19091)).hasToString("PLAINTEXT://127.0.0.1:19091");
        assertThat(plaintext("::1", 1)).hasToString("PLAINTEXT://[::1]:1");
        assertThatThrownBy(() -> plaintext("h", 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port 0");
        assertThatThrownBy(() -> plaintext("h", 65536)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plaintext(" ", 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host");
        assertThatThrownBy(() -> plaintext(" h", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plaintext("h".repeat(Endpoint.MAX_STRING_BYTES + 1), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("255");
        assertThatThrownBy(() -> new Endpoint("", "PLAINTEXT", "h", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("listener name");
        assertThatThrownBy(() -> new Endpoint("PLAINTEXT", null, "h", 1)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("LDR-4 a registration's endpoints: at most 16, names distinct; a peer dials the one named like its own listener, else the first")
    void registrationEndpoints() {
        List<Endpoint> many = new ArrayList<>();
        for (int i = 0; i <= Endpoint.MAX_ENDPOINTS; i++) {
            many.add(new Endpoint("L" + i, "PLAINTEXT", "h", 1 + i));
        }
        assertThatThrownBy(() -> Endpoint.checkedList(7, many)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Broker 7").hasMessageContaining("17 endpoints");
        assertThatThrownBy(() -> new BrokerRegistration(7, 1, true, false, List.of(plaintext("a", 1), plaintext("b", 2))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");

        Endpoint ssl = new Endpoint("SSL", "SSL", "h", 9093);
        Endpoint plain = plaintext("h", 9092);
        BrokerRegistration both = new BrokerRegistration(7, 1, false, false, List.of(ssl, plain));
        assertThat(both.endpoint("PLAINTEXT")).contains(plain);
        assertThat(both.endpoint("SSL")).contains(ssl);
        assertThat(both.endpoint("INTERNAL")).contains(ssl);
        assertThat(new BrokerRegistration(7, 1, false, false).endpoint("PLAINTEXT")).isEmpty();
        assertThat(new BrokerRegistration(7, 1, false, false).endpoints()).isEmpty();
    }
}
