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
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The tiny JVM the process tests start: listens on a free port of 127.0.0.1 and answers one line
 * per connection ({@code ping} -> {@code pong}; {@code spin N} burns N ms of CPU time, then {@code done}).
 * Arguments: the file to write its port to, and the file its shutdown hook writes (so a test can
 * tell SIGTERM, which runs hooks, from {@code kill -9}, which does not).
 */
public final class EchoServerMain {

    private EchoServerMain() {
    }

    public static void main(String[] args) throws IOException {
        Path portFile = Path.of(args[0]);
        Path hookFile = Path.of(args[1]);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Files.writeString(hookFile, "shutdown hook ran\n");
            } catch (IOException e) {
                // nothing to report to: the test sees the missing file
            }
        }));
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // Printed (System.out flushes on println) before the port file appears, so a test that saw the
            // port file finds the line in the captured output.
            System.out.println("echo server listening on " + server.getLocalPort());
            Path tmp = Path.of(portFile + ".tmp");
            Files.writeString(tmp, Integer.toString(server.getLocalPort()));
            Files.move(tmp, portFile, StandardCopyOption.ATOMIC_MOVE);
            while (true) {
                try (Socket s = server.accept()) {
                    s.setSoTimeout(2_000);
                    String line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))
                            .readLine();
                    OutputStream out = s.getOutputStream();
                    if ("ping".equals(line)) {
                        out.write("pong\n".getBytes(StandardCharsets.UTF_8));
                    } else if (line != null && line.startsWith("spin ")) {
                        spin(Long.parseLong(line.substring(5)));
                        out.write("done\n".getBytes(StandardCharsets.UTF_8));
                    }
                    out.flush();
                } catch (IOException e) {
                    // the client went away (e.g. it gave up while this process was stopped): next connection
                }
            }
        }
    }

    private static long sink;

    /** Busy until this thread has used {@code ms} of CPU time (however long a shared machine makes that take). */
    private static void spin(long ms) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long end = threads.getCurrentThreadCpuTime() + ms * 1_000_000;
        long x = 0;
        while (threads.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x += x * 31 + 7;
            }
        }
        sink = x;
    }
}
