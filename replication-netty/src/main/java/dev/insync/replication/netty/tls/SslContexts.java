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

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

/**
 * Netty {@link SslContext}s on the JDK's {@code SSLEngine} from an {@link SslConfig}. A keystore or
 * truststore that cannot be read fails here, naming its file, before anything listens or connects.
 */
public final class SslContexts {

    private SslContexts() {
    }

    /** A server context: presents the keystore's certificate, checks peers against the truststore per {@code ssl.client.auth}. */
    public static SslContext forServer(SslConfig config) {
        KeyManagerFactory kmf = keyManagers(config);
        if (kmf == null) {
            throw new IllegalArgumentException("A TLS server needs " + SslConfig.KEYSTORE_LOCATION);
        }
        try {
            SslContextBuilder b = SslContextBuilder.forServer(kmf).sslProvider(SslProvider.JDK)
                    .protocols(config.enabledProtocols())
                    .clientAuth(switch (config.clientAuth()) {
                        case NONE -> io.netty.handler.ssl.ClientAuth.NONE;
                        case REQUESTED -> io.netty.handler.ssl.ClientAuth.OPTIONAL;
                        case REQUIRED -> io.netty.handler.ssl.ClientAuth.REQUIRE;
                    });
            TrustManagerFactory tmf = trustManagers(config);
            if (tmf != null) {
                b.trustManager(tmf);
            }
            return b.build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("Cannot build the TLS server context from " + config + ": " + e, e);
        }
    }

    /** A client context: trusts servers per the truststore, presents the keystore's certificate if one is set. */
    public static SslContext forClient(SslConfig config) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                    .protocols(config.enabledProtocols())
                    .endpointIdentificationAlgorithm(config.endpointIdentificationAlgorithm().isEmpty()
                            ? null : config.endpointIdentificationAlgorithm().toUpperCase(java.util.Locale.ROOT));
            KeyManagerFactory kmf = keyManagers(config);
            if (kmf != null) {
                b.keyManager(kmf);
            }
            TrustManagerFactory tmf = trustManagers(config);
            if (tmf != null) {
                b.trustManager(tmf);
            }
            return b.build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("Cannot build the TLS client context from " + config + ": " + e, e);
        }
    }

    private static KeyManagerFactory keyManagers(SslConfig config) {
        if (config.keystoreLocation().isEmpty()) {
            return null;
        }
        Path path = config.keystoreLocation().get();
        KeyStore ks = load(path, config.keystoreType(), config.keystorePassword(), SslConfig.KEYSTORE_LOCATION);
        try {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, config.keyPassword().orElse(config.keystorePassword()).toCharArray());
            return kmf;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("Cannot use the key in " + SslConfig.KEYSTORE_LOCATION + " " + path
                    + " (" + SslConfig.KEY_PASSWORD + "?): " + e, e);
        }
    }

    private static TrustManagerFactory trustManagers(SslConfig config) {
        if (config.truststoreLocation().isEmpty()) {
            return null;
        }
        Path path = config.truststoreLocation().get();
        KeyStore ts = load(path, config.truststoreType(), config.truststorePassword(), SslConfig.TRUSTSTORE_LOCATION);
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ts);
            return tmf;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("Cannot use " + SslConfig.TRUSTSTORE_LOCATION + " " + path + ": " + e, e);
        }
    }

    private static KeyStore load(Path path, String type, String password, String property) {
        try (InputStream in = Files.newInputStream(path)) {
            KeyStore ks = KeyStore.getInstance(type);
            ks.load(in, password.toCharArray());
            return ks;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("Cannot read " + property + " " + path + " as " + type + ": " + e, e);
        }
    }
}
