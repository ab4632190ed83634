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
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A stand-in for {@code insync broker --config FILE} in the tests of {@link ProcessCluster} itself:
 * reads the file, listens on its {@code listeners} port, echoes every byte back, prints the
 * readiness line, and on SIGTERM writes {@code stopped} into its directory before exiting (as a
 * controlled shutdown's marker would).
 */
public final class StandInNodeMain {

    private StandInNodeMain() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3 || !args[0].equals("broker") || !args[1].equals("--config")) {
            System.err.println("usage: broker --config FILE");
            System.exit(2);
        }
        Path file = Path.of(args[2]);
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(r);
        }
        String listener = props.getProperty("listeners");
        int port = Integer.parseInt(listener.substring(listener.lastIndexOf(':') + 1));
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Files.writeString(file.resolveSibling("stopped"), "clean\n");
            } catch (IOException e) {
                // the test sees the missing file
            }
        }));
        System.out.println("insync: ready node.id=" + props.getProperty("node.id") + " roles="
                + props.getProperty("process.roles") + " listeners=" + listener);
        System.out.flush();
        while (true) {
            Socket s = server.accept();
            Thread t = new Thread(() -> echo(s));
            t.setDaemon(true);
            t.start();
        }
    }

    private static void echo(Socket s) {
        byte[] buffer = new byte[4096];
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // the peer went away
        }
    }
}
