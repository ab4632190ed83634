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
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Free TCP ports on 127.0.0.1 for processes that must be told their port before they start. */
public final class LoopbackPorts {

    private LoopbackPorts() {
    }

    /**
     * {@code count} distinct ports that were free a moment ago: all bound at once (so none repeats),
     * then released for the processes to bind. Another program could take one in between; a process
     * that then fails to bind shows it in its log.
     */
    public static List<Integer> free(int count) throws IOException {
        if (count < 1) {
            throw new IllegalArgumentException("count must be positive, not " + count);
        }
        List<ServerSocket> held = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(s);
                ports.add(s.getLocalPort());
            }
            return List.copyOf(ports);
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
    }
}
