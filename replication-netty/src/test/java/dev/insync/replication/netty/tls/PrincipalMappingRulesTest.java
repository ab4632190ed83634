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

package dev.insync.replication.netty.tls;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PrincipalMappingRulesTest {

    @Test
    @DisplayName("SEC-2 rules apply in order, the first full match wins; L and U change case; DEFAULT is the name itself")
    void rules() {
        PrincipalMappingRules rules = PrincipalMappingRules.parse(
                "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?)$/$1@$2/L,DEFAULT");
        assertThat(rules.principalFor("CN=kafka,OU=ServiceUsers,O=x")).contains("kafka");
        assertThat(rules.principalFor("CN=Broker,OU=Insync")).contains("broker@insync");
        assertThat(rules.principalFor("CN=other")).contains("CN=other");
        assertThat(PrincipalMappingRules.parse("RULE:^CN=(.*)$/$1/U").principalFor("CN=b1")).contains("B1");
        assertThat(PrincipalMappingRules.parse("RULE:^CN=(.*)$/$1/").principalFor("O=x")).isEqualTo(Optional.empty());
        assertThat(PrincipalMappingRules.parse("RULE:^CN=(.*)\\/x$/$1/").principalFor("CN=a/x")).contains("a");
    }

    @Test
    @DisplayName("SEC-2 a bad rule is refused with its position")
    void badRules() {
        assertThatThrownBy(() -> PrincipalMappingRules.parse("RULE:^CN=(.*$/$1/"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad pattern");
        assertThatThrownBy(() -> PrincipalMappingRules.parse("RULE:abc"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unterminated");
        assertThatThrownBy(() -> PrincipalMappingRules.parse("DEFAULT;"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 7");
    }

    @Test
    @DisplayName("SEC-2 insync.broker.principal.<id> maps one principal to one broker id")
    void brokerPrincipals() {
        BrokerPrincipals p = BrokerPrincipals.fromProperties(Map.of("insync.broker.principal.2", "CN=broker-2",
                "insync.broker.principal.3", "CN=broker-3", "unrelated", "x"));
        assertThat(p.brokerIdOf("CN=broker-2")).isEqualTo(OptionalInt.of(2));
        assertThat(p.brokerIdOf("CN=broker-4")).isEmpty();
        assertThatThrownBy(() -> BrokerPrincipals.fromProperties(Map.of("insync.broker.principal.2", "CN=b",
                "insync.broker.principal.3", "CN=b"))).hasMessageContaining("mapped to brokers 2 and 3");
        assertThatThrownBy(() -> BrokerPrincipals.fromProperties(Map.of("insync.broker.principal.x", "CN=b")))
                .hasMessageContaining("not a broker id");
    }
}
