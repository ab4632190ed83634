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

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * One quick check of whether a started process is ready; {@link JvmProcess#awaitReady} repeats it
 * until it passes or a bound runs out. A probe should answer within a fraction of a second; an
 * exception counts as "not yet".
 */
@FunctionalInterface
public interface ReadinessProbe {

    /** Bound of one connection attempt of {@link #tcpAccepts}. */
    int CONNECT_TIMEOUT_MS = 200;

    /** Whether {@code process} is ready now. */
    boolean isReady(JvmProcess process) throws IOException;

    /**
     * Ready once a TCP connection to {@code address} is accepted. The kernel accepts into the
     * listen backlog even while the process is stopped or not yet serving, so this proves that the
     * port is bound, not that requests are answered.
     */
    static ReadinessProbe tcpAccepts(InetSocketAddress address) {
        return process -> {
            try (Socket socket = new Socket()) {
                socket.connect(address, CONNECT_TIMEOUT_MS);
                return true;
            } catch (IOException e) {
                return false;
            }
        };
    }

    /** Ready once the process's captured output contains {@code text}. */
    static ReadinessProbe logContains(String text) {
        // Decoded leniently: a process may print bytes that are not UTF-8.
        return process -> Files.exists(process.logFile())
                && new String(Files.readAllBytes(process.logFile()), StandardCharsets.UTF_8).contains(text);
    }

    /**
     * Ready once the captured output, from byte {@code offset} on, contains {@code text}: for a
     * process restarted under the same name, whose output is appended to the previous one's.
     */
    static ReadinessProbe logContainsAfter(String text, long offset) {
        return process -> {
            if (!Files.exists(process.logFile())) {
                return false;
            }
            byte[] all = Files.readAllBytes(process.logFile());
            int from = (int) Math.min(offset, all.length);
            return new String(all, from, all.length - from, StandardCharsets.UTF_8).contains(text);
        };
    }
}
