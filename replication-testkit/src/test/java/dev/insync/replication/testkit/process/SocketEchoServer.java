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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-process echo server on 127.0.0.1 for the proxy tests: writes back every byte it reads,
 * counts what it received, and how each connection ended (end of stream or an error such as a reset).
 */
final class SocketEchoServer implements AutoCloseable {

    private final ServerSocket server;
    private final Thread acceptor;
    private final List<Socket> sockets = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    final AtomicLong received = new AtomicLong();
    final AtomicInteger accepted = new AtomicInteger();
    final AtomicInteger endedByEof = new AtomicInteger();
    final AtomicInteger endedByError = new AtomicInteger();

    SocketEchoServer() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::acceptLoop, "echo-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    private void acceptLoop() {
        while (true) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            accepted.incrementAndGet();
            Thread t = new Thread(() -> echo(s), "echo-conn");
            t.setDaemon(true);
            synchronized (this) {
                sockets.add(s);
                threads.add(t);
            }
            t.start();
        }
    }

    private void echo(Socket s) {
        byte[] buffer = new byte[8192];
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            while (true) {
                int n = in.read(buffer);
                if (n < 0) {
                    endedByEof.incrementAndGet();
                    return;
                }
                received.addAndGet(n);
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            endedByError.incrementAndGet();
        }
    }

    @Override
    public void close() throws Exception {
        server.close();
        acceptor.join(5_000);
        List<Thread> all;
        synchronized (this) {
            for (Socket s : sockets) {
                s.close();
            }
            all = List.copyOf(threads);
        }
        for (Thread t : all) {
            t.join(5_000);
        }
    }
}
