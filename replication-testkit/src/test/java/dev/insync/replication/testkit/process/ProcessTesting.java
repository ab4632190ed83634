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

package dev.insync.replication.testkit.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** What the process tests share: the echo server's spec, its probes, and a client for it. */
final class ProcessTesting {

    /** Small, quick-starting JVMs: the tests start many. */
    static final String[] SMALL_JVM = {"-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"};

    private ProcessTesting() {
    }

    /** The class path of the testkit's classes and test classes (the echo server needs the JDK only). */
    static String testClassPath() {
        return JvmSpec.classPathOf(List.of(codeSource(ProcessGroup.class), codeSource(EchoServerMain.class)));
    }

    static JvmSpec echoServer(String name, Path portFile, Path hookFile) {
        return JvmSpec.of(name, testClassPath(), EchoServerMain.class.getName())
                .withJvmOptions(SMALL_JVM)
                .withArguments(portFile.toString(), hookFile.toString());
    }

    /** Ready once the echo server has written its port. */
    static ReadinessProbe portFileWritten(Path portFile) {
        return process -> Files.exists(portFile);
    }

    /** Ready once the echo server answers a ping. */
    static ReadinessProbe answersPing(Path portFile) {
        return process -> Files.exists(portFile) && ask(port(portFile), "ping", 500).equals(Optional.of("pong"));
    }

    static int port(Path portFile) throws IOException {
        return Integer.parseInt(Files.readString(portFile).strip());
    }

    /** Sends one line and returns the answer, or empty if no connection or no answer within {@code timeoutMs}. */
    static Optional<String> ask(int port, String line, int timeoutMs) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMs);
            s.setSoTimeout(timeoutMs);
            OutputStream out = s.getOutputStream();
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            return Optional.ofNullable(new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))
                    .readLine());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Whether a connection to {@code port} is refused (nothing listens). */
    static boolean refused(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    static Path codeSource(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("No code source for " + type, e);
        }
    }
}
