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

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * SEC-2: which principal is which broker. Configured as one property per broker,
 * {@code insync.broker.principal.<brokerId>=<principal>} (the principal as
 * {@link PrincipalMappingRules} produces it from the certificate's subject, e.g. {@code CN=broker-2}
 * with the DEFAULT rule, or {@code broker-2} with {@code RULE:^CN=([^,]+).*$/$1/}). A principal may
 * belong to one broker only. Immutable, thread-safe.
 */
public final class BrokerPrincipals {

    public static final String PREFIX = "insync.broker.principal.";

    private final PrincipalMappingRules rules;
    private final Map<String, Integer> brokerByPrincipal;

    public BrokerPrincipals(PrincipalMappingRules rules, Map<Integer, String> principalByBroker) {
        this.rules = rules;
        Map<String, Integer> m = new HashMap<>();
        new TreeMap<>(principalByBroker).forEach((id, principal) -> {
            if (id < 0) {
                throw new IllegalArgumentException(PREFIX + id + ": negative broker id");
            }
            Integer other = m.putIfAbsent(principal, id);
            if (other != null) {
                throw new IllegalArgumentException("Principal '" + principal + "' is mapped to brokers " + other
                        + " and " + id + " (" + PREFIX + "*)");
            }
        });
        this.brokerByPrincipal = Map.copyOf(m);
    }

    /** {@code ssl.principal.mapping.rules} (default DEFAULT) and every {@code insync.broker.principal.<id>} in {@code props}. */
    public static BrokerPrincipals fromProperties(Map<String, ?> props) {
        Object rulesValue = props.get(PrincipalMappingRules.PROPERTY);
        PrincipalMappingRules rules = rulesValue == null ? PrincipalMappingRules.DEFAULT
                : PrincipalMappingRules.parse(rulesValue.toString());
        Map<Integer, String> byBroker = new TreeMap<>();
        props.forEach((k, v) -> {
            if (k.startsWith(PREFIX)) {
                String id = k.substring(PREFIX.length());
                try {
                    byBroker.put(Integer.parseInt(id), v.toString().trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("Property " + k + ": '" + id + "' is not a broker id", e);
                }
            }
        });
        return new BrokerPrincipals(rules, byBroker);
    }

    /** The broker id of {@code principal}, if it is one. */
    public OptionalInt brokerIdOf(String principal) {
        Integer id = brokerByPrincipal.get(principal);
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    /** The identity of the peer of a finished handshake: anonymous without a certificate. */
    public PeerIdentity identify(SSLSession session) {
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return PeerIdentity.ANONYMOUS;
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate cert)) {
            return PeerIdentity.ANONYMOUS;
        }
        Optional<String> principal = rules.principalFor(cert.getSubjectX500Principal().getName());
        return new PeerIdentity(principal, principal.map(this::brokerIdOf).orElse(OptionalInt.empty()));
    }
}
