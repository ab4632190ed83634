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

import dev.insync.replication.testkit.process.LinkProxy.Direction;
import dev.insync.replication.testkit.process.LinkProxy.DirectionState;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * One connection through a {@link LinkProxy}: the client's socket, the proxy's socket to the
 * server, and a {@link Pump} per direction. A read error or reset on either end resets the other
 * end, so a peer's RST travels through the proxy as it would through a network.
 */
final class ProxiedConnection {

    /** Read buffer per direction. */
    private static final int CHUNK_BYTES = 64 * 1024;

    private final LinkProxy proxy;
    private final Socket client;
    private final Socket upstream;
    private final Pump toServer;
    private final Pump toClient;
    private volatile boolean ended;
    private volatile boolean damaged;

    ProxiedConnection(LinkProxy proxy, long number, Socket client, Socket upstream) {
        this.proxy = proxy;
        this.client = client;
        this.upstream = upstream;
        String prefix = "link-proxy-" + proxy.name() + "-c" + number;
        this.toServer = new Pump(prefix + "-to-server", Direction.TO_SERVER, client, upstream);
        this.toClient = new Pump(prefix + "-to-client", Direction.TO_CLIENT, upstream, client);
    }

    void start() {
        toServer.start();
        toClient.start();
    }

    /** Whether both ends are closed (by EOF both ways, a reset, or {@link #close()}). */
    boolean finished() {
        return ended;
    }

    /** Whether bytes or a close were dropped by a blackhole on this connection. */
    boolean damaged() {
        return damaged;
    }

    /** RST to both ends; the pumps end. */
    void reset() {
        ended = true;
        LinkProxy.resetQuietly(client);
        LinkProxy.resetQuietly(upstream);
        toServer.wake();
        toClient.wake();
    }

    /** Closes both ends (FIN); the pumps end. */
    void close() {
        ended = true;
        LinkProxy.closeQuietly(client);
        LinkProxy.closeQuietly(upstream);
        toServer.wake();
        toClient.wake();
    }

    void join() {
        toServer.join();
        toClient.join();
    }

    /** Called by a pump that has delivered an end of stream: once both have, the connection is done. */
    private void halfClosed() {
        if (toServer.eofDelivered && toClient.eofDelivered) {
            close();
        }
    }

    /** An I/O error on one end (a reset by its peer, say): pass it on as a reset of both ends. */
    private void failed() {
        if (!ended) {
            reset();
        }
    }

    /** A chunk of bytes read, or the end of the stream ({@code bytes == null}), and when it may be written. */
    private record Chunk(byte[] bytes, long dueNanos) {
        boolean eof() {
            return bytes == null;
        }
    }

    /**
     * One direction: a reader that applies the blackhole at read time and queues what passes with
     * its due time, and a writer that writes the queue in order once each chunk is due (dropping
     * it if a blackhole started meanwhile: in flight when the link was cut).
     */
    private final class Pump {
        private final Direction direction;
        private final DirectionState state;
        private final Socket from;
        private final Socket to;
        private final Thread reader;
        private final Thread writer;
        private final ArrayDeque<Chunk> queue = new ArrayDeque<>();
        private long queuedBytes;
        private boolean readerDone;
        volatile boolean eofDelivered;

        Pump(String name, Direction direction, Socket from, Socket to) {
            this.direction = direction;
            this.state = proxy.state(direction);
            this.from = from;
            this.to = to;
            this.reader = new Thread(this::readLoop, name + "-read");
            this.writer = new Thread(this::writeLoop, name + "-write");
            reader.setDaemon(true);
            writer.setDaemon(true);
        }

        void start() {
            reader.start();
            writer.start();
        }

        void join() {
            LinkProxy.join(reader);
            LinkProxy.join(writer);
        }

        synchronized void wake() {
            notifyAll();
        }

        private void readLoop() {
            byte[] buffer = new byte[CHUNK_BYTES];
            try {
                InputStream in = from.getInputStream();
                while (!ended) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        if (state.blackholed) {
                            damaged = true; // the FIN vanished with the link
                        } else {
                            enqueue(new Chunk(null, deadline()));
                        }
                        return;
                    }
                    if (state.blackholed) {
                        state.dropped.addAndGet(n);
                        damaged = true;
                    } else {
                        enqueue(new Chunk(Arrays.copyOf(buffer, n), deadline()));
                    }
                }
            } catch (IOException e) {
                failed();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                synchronized (this) {
                    readerDone = true;
                    notifyAll();
                }
            }
        }

        private long deadline() {
            return System.nanoTime() + state.delayNanos;
        }

        private synchronized void enqueue(Chunk chunk) throws InterruptedException {
            long size = chunk.eof() ? 0 : chunk.bytes().length;
            // Bounded: a delayed link holds at most MAX_BUFFERED_BYTES, then the sender's window fills.
            while (!ended && queuedBytes > 0 && queuedBytes + size > LinkProxy.MAX_BUFFERED_BYTES) {
                wait();
            }
            queue.addLast(chunk);
            queuedBytes += size;
            notifyAll();
        }

        /** The next chunk once it is due, or null once the connection ended or nothing more can come. */
        private synchronized Chunk nextDue() throws InterruptedException {
            while (!ended) {
                Chunk head = queue.peekFirst();
                if (head == null) {
                    if (readerDone) {
                        return null;
                    }
                    wait();
                    continue;
                }
                long waitNanos = head.dueNanos() - System.nanoTime();
                if (waitNanos > 0) {
                    // A timed wait for the due time (woken early only by close or reset).
                    wait(Math.max(1, waitNanos / 1_000_000), (int) (waitNanos % 1_000_000));
                    continue;
                }
                queue.removeFirst();
                queuedBytes -= head.eof() ? 0 : head.bytes().length;
                notifyAll();
                return head;
            }
            return null;
        }

        private void writeLoop() {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk chunk = nextDue();
                    if (chunk == null) {
                        return;
                    }
                    if (state.blackholed) {
                        // In flight when the link was cut: lost, never delivered later.
                        damaged = true;
                        if (!chunk.eof()) {
                            state.dropped.addAndGet(chunk.bytes().length);
                        }
                        continue;
                    }
                    if (chunk.eof()) {
                        to.shutdownOutput();
                        eofDelivered = true;
                        halfClosed();
                        return;
                    }
                    out.write(chunk.bytes());
                    state.delivered.addAndGet(chunk.bytes().length);
                }
            } catch (IOException e) {
                failed();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String toString() {
            return direction + " of " + proxy;
        }
    }
}
