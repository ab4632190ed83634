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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static dev.insync.replication.testkit.process.JvmProcessTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The proxy's faults, each on a plain echo server: what is delivered, what is dropped (and never
 * delivered later), what is reset, what is delayed, and that heal and close do what they say.
 * "Nothing arrived" is proven by order, not by waiting: after a heal the next echo holds only the
 * bytes sent after it, which could not be if the dropped ones were still on their way.
 */
@Timeout(60)
class LinkProxyTest {

    private static final int READ_TIMEOUT_MS = 10_000;

    private SocketEchoServer echo;
    private LinkProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new SocketEchoServer();
        proxy = LinkProxy.start("a-b", echo.address());
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(proxy.address(), READ_TIMEOUT_MS);
        s.setSoTimeout(READ_TIMEOUT_MS);
        return s;
    }

    private static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
    }

    private static String read(Socket s, int bytes) throws IOException {
        byte[] buffer = new byte[bytes];
        InputStream in = s.getInputStream();
        int at = 0;
        while (at < bytes) {
            int n = in.read(buffer, at, bytes - at);
            if (n < 0) {
                throw new IOException("end of stream after " + at + " bytes");
            }
            at += n;
        }
        return new String(buffer, StandardCharsets.UTF_8);
    }

    @Test
    void forwardsBothWaysAndCountsTheBytes() throws Exception {
        try (Socket s = connect()) {
            send(s, "hello");
            assertThat(read(s, 5)).isEqualTo("hello");
        }
        eventually(() -> proxy.deliveredBytes(Direction.TO_SERVER) == 5); // counted just after the write returns
        eventually(() -> proxy.deliveredBytes(Direction.TO_CLIENT) == 5);
        assertThat(proxy.acceptedConnections()).isEqualTo(1);
    }

    @Test
    void aClientCloseReachesTheServerAndEndsTheConnection() throws Exception {
        try (Socket s = connect()) {
            send(s, "x");
            assertThat(read(s, 1)).isEqualTo("x");
            s.shutdownOutput();
            assertThat(s.getInputStream().read()).isEqualTo(-1); // the server's close came back
        }
        eventually(() -> echo.endedByEof.get() == 1);
        eventually(() -> proxy.openConnections() == 0);
    }

    @Test
    void blackholeToServerDropsRequestsKeepsTheConnectionAndNeverDeliversThemLater() throws Exception {
        try (Socket s = connect()) {
            send(s, "before");
            assertThat(read(s, 6)).isEqualTo("before");
            proxy.blackhole(Direction.TO_SERVER);
            send(s, "lost");
            eventually(() -> proxy.droppedBytes(Direction.TO_SERVER) == 4);
            assertThat(echo.received.get()).isEqualTo(6);
            assertThat(proxy.openConnections()).isEqualTo(1);
            assertThat(echo.endedByEof.get() + echo.endedByError.get()).isZero();

            proxy.heal();
            send(s, "after");
            assertThat(read(s, 5)).isEqualTo("after"); // not "lost": it was dropped, not held back
            assertThat(echo.received.get()).isEqualTo(11);
        }
    }

    @Test
    void blackholeToClientDropsResponsesWhileRequestsStillArrive() throws Exception {
        try (Socket s = connect()) {
            proxy.blackhole(Direction.TO_CLIENT);
            assertThat(proxy.isBlackholed(Direction.TO_CLIENT)).isTrue();
            send(s, "ping");
            eventually(() -> echo.received.get() == 4);
            eventually(() -> proxy.droppedBytes(Direction.TO_CLIENT) == 4);
            proxy.heal();
            send(s, "pong");
            assertThat(read(s, 4)).isEqualTo("pong");
        }
    }

    @Test
    void blackholeBothSwallowsACloseAndResetDamagedEndsTheConnectionWithARst() throws Exception {
        Socket s = connect();
        send(s, "x");
        assertThat(read(s, 1)).isEqualTo("x");
        Socket other = connect();
        send(other, "y");
        assertThat(read(other, 1)).isEqualTo("y");
        proxy.blackholeBoth();
        send(s, "gone");
        eventually(() -> proxy.droppedBytes(Direction.TO_SERVER) == 4);
        proxy.heal();
        assertThat(proxy.resetDamaged()).isEqualTo(1); // the undamaged connection goes on
        assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketException.class);
        eventually(() -> echo.endedByError.get() == 1); // the server saw the reset too
        send(other, "z");
        assertThat(read(other, 1)).isEqualTo("z");
        s.close();
        other.close();
    }

    @Test
    void blackholeDropsBytesThatWereWaitingOutADelay() throws Exception {
        try (Socket s = connect()) {
            proxy.delay(Direction.TO_SERVER, 300);
            send(s, "in-flight");
            proxy.blackhole(Direction.TO_SERVER); // before the chunk falls due (or even before it was read)
            eventually(() -> proxy.droppedBytes(Direction.TO_SERVER) == 9);
            proxy.heal();
            send(s, "next");
            assertThat(read(s, 4)).isEqualTo("next");
        }
        assertThat(echo.received.get()).isEqualTo(4);
    }

    @Test
    void resetSendsRstToBothEndsAndRefusesNewConnectionsUntilHealed() throws Exception {
        Socket s = connect();
        send(s, "x");
        assertThat(read(s, 1)).isEqualTo("x");
        proxy.reset();
        assertThat(proxy.isResetting()).isTrue();
        assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketException.class)
                .hasMessageContaining("reset");
        eventually(() -> echo.endedByError.get() == 1);
        s.close();

        // accepted by the kernel, then reset by the proxy: the connect, first write or first read fails
        assertResetOnConnect(proxy.address());
        assertThat(echo.accepted.get()).isEqualTo(1); // the refused one never reached the server

        proxy.heal();
        try (Socket again = connect()) {
            send(again, "ok");
            assertThat(read(again, 2)).isEqualTo("ok");
        }
    }

    @Test
    void delayAddsLatencyPerDirection() throws Exception {
        try (Socket s = connect()) {
            send(s, "w");
            assertThat(read(s, 1)).isEqualTo("w");
            proxy.delay(Direction.TO_SERVER, 150);
            proxy.delay(Direction.TO_CLIENT, 100);
            long start = System.nanoTime();
            send(s, "d");
            assertThat(read(s, 1)).isEqualTo("d");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(250);
        }
    }

    @Test
    void loweringTheDelayKeepsTheBytesInOrder() throws Exception {
        try (Socket s = connect()) {
            proxy.delay(Direction.TO_SERVER, 300);
            send(s, "first-");
            eventually(() -> proxy.openConnections() == 1);
            proxy.delay(Direction.TO_SERVER, 0);
            send(s, "second");
            assertThat(read(s, 12)).isEqualTo("first-second");
        }
    }

    @Test
    void aServerThatIsDownMeansAResetConnection() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        try (LinkProxy dead = LinkProxy.start("a-nobody", new InetSocketAddress("127.0.0.1", port))) {
            assertResetOnConnect(dead.address());
        }
    }

    /** A connection to {@code address} fails with a reset, at connect (the RST can beat the handshake's end), write or read. */
    private static void assertResetOnConnect(InetSocketAddress address) {
        assertThatThrownBy(() -> {
            try (Socket s = new Socket()) {
                s.connect(address, READ_TIMEOUT_MS);
                s.setSoTimeout(READ_TIMEOUT_MS);
                send(s, "y");
                if (s.getInputStream().read() < 0) {
                    throw new IllegalStateException("closed without a reset");
                }
            }
        }).isInstanceOf(SocketException.class);
    }

    @Test
    void closeStopsEveryThreadAndClosesEverySocket() throws Exception {
        Socket a = connect();
        Socket b = connect();
        send(a, "1");
        send(b, "2");
        assertThat(read(a, 1)).isEqualTo("1");
        assertThat(read(b, 1)).isEqualTo("2");
        proxy.delay(Direction.TO_CLIENT, 60_000); // a writer waiting out a delay must stop too
        send(a, "3");
        eventually(() -> echo.received.get() == 3);
        assertThat(proxyThreads()).isGreaterThanOrEqualTo(9); // acceptor + 4 per connection
        proxy.close();
        assertThat(proxyThreads()).isZero();
        for (Socket s : new Socket[] {a, b}) {
            try {
                assertThat(s.getInputStream().read()).isEqualTo(-1);
            } catch (SocketException | SocketTimeoutException e) {
                // closed: an end of stream or a reset are both fine, a hang is not
                assertThat(e).isNotInstanceOf(SocketTimeoutException.class);
            }
            s.close();
        }
        proxy.close(); // idempotent
    }

    private static long proxyThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("link-proxy-a-b-"))
                .count();
    }
}
