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

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Test certificates made at test time with the JDK's keytool (one self-signed EC key pair per
 * identity, SAN ip:127.0.0.1) and a truststore built with the KeyStore API from the chosen ones.
 * No dependency beyond the JDK; every keytool run is bounded and its process reaped.
 */
final class Certificates {

    static final String PASSWORD = "test-pass";
    private static final long KEYTOOL_TIMEOUT_S = 60;

    private Certificates() {
    }

    /** A PKCS12 keystore {@code <dir>/<alias>.p12} holding a new key pair for {@code dn}. */
    static Path keystore(Path dir, String alias, String dn) throws IOException, InterruptedException {
        Path file = dir.resolve(alias + ".p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<String> cmd = List.of(keytool.toString(), "-genkeypair", "-alias", alias, "-keyalg", "EC",
                "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA", "-dname", dn, "-validity", "2",
                "-ext", "SAN=ip:127.0.0.1", "-keystore", file.toString(), "-storetype", "PKCS12",
                "-storepass", PASSWORD, "-keypass", PASSWORD);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve(alias + ".log").toFile())
                .start();
        try {
            if (!p.waitFor(KEYTOOL_TIMEOUT_S, TimeUnit.SECONDS)) {
                throw new AssertionError("keytool for " + alias + " did not finish within " + KEYTOOL_TIMEOUT_S + " s");
            }
            if (p.exitValue() != 0) {
                throw new AssertionError("keytool for " + alias + " failed: " + Files.readString(dir.resolve(alias + ".log")));
            }
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(KEYTOOL_TIMEOUT_S, TimeUnit.SECONDS);
            }
        }
        return file;
    }

    /** A PKCS12 truststore trusting the certificates of these keystores. */
    static Path truststore(Path dir, String name, Map<String, Path> keystoresByAlias) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, PASSWORD.toCharArray());
        for (Map.Entry<String, Path> e : new TreeMap<>(keystoresByAlias).entrySet()) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(e.getValue())) {
                ks.load(in, PASSWORD.toCharArray());
            }
            Certificate cert = ks.getCertificate(e.getKey());
            trust.setCertificateEntry(e.getKey(), cert);
        }
        Path file = dir.resolve(name + ".p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            trust.store(out, PASSWORD.toCharArray());
        }
        return file;
    }

    /** TLS settings with this keystore (or none) and truststore, Kafka's property names. */
    static Map<String, Object> sslProperties(Path keystore, Path truststore, String clientAuth) {
        Map<String, Object> props = new TreeMap<>();
        props.put(SslConfig.SECURITY_PROTOCOL, "SSL");
        if (keystore != null) {
            props.put(SslConfig.KEYSTORE_LOCATION, keystore.toString());
            props.put(SslConfig.KEYSTORE_PASSWORD, PASSWORD);
            props.put(SslConfig.KEYSTORE_TYPE, "PKCS12");
            props.put(SslConfig.KEY_PASSWORD, PASSWORD);
        }
        props.put(SslConfig.TRUSTSTORE_LOCATION, truststore.toString());
        props.put(SslConfig.TRUSTSTORE_PASSWORD, PASSWORD);
        props.put(SslConfig.TRUSTSTORE_TYPE, "PKCS12");
        props.put(SslConfig.CLIENT_AUTH, clientAuth);
        return props;
    }

    static List<String> names(Map<String, Path> m) {
        return new ArrayList<>(m.keySet());
    }
}
