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

package dev.insync.replication.netty.client;

import dev.insync.replication.netty.client.BufferMemory.Reservation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code buffer.memory} on its own: reservations up to the bound, waits that end when room comes
 * (first come, first served), at their bound, on interrupt or on close, and releases that cannot
 * give back more than was taken.
 */
class BufferMemoryTest {

    private static final long WAIT_MS = 20_000;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
    }

    /** Waits (bounded) until {@code n} threads wait in {@code memory}. */
    private static void awaitWaiters(BufferMemory memory, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (memory.waitingThreads() < n) {
            assertThat(System.nanoTime()).as("%d threads waiting", n).isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    private CompletableFuture<Reservation> reserveOnAnotherThread(BufferMemory memory, int bytes, long maxWaitMs) {
        return CompletableFuture.supplyAsync(() -> memory.reserve(bytes, maxWaitMs), threads);
    }

    @Test
    @DisplayName("PRO-5 reservations take room up to the bound; beyond it a reservation that may not wait is refused at once and takes nothing")
    void reservesUpToTheBound() {
        BufferMemory memory = new BufferMemory(1_000);
        assertThat(memory.reserve(600, 0)).isEqualTo(Reservation.RESERVED);
        assertThat(memory.reserve(400, 0)).isEqualTo(Reservation.RESERVED);
        assertThat(memory.availableBytes()).isZero();
        assertThat(memory.reserve(1, 0)).isEqualTo(Reservation.TIMED_OUT);
        assertThat(memory.availableBytes()).isZero();
        memory.release(1_000);
        assertThat(memory.availableBytes()).isEqualTo(1_000);
    }

    @Test
    @DisplayName("PRO-5 a waiting reservation goes on when a release makes room, and not before")
    void waitEndsWhenRoomComes() throws Exception {
        BufferMemory memory = new BufferMemory(1_000);
        assertThat(memory.reserve(900, 0)).isEqualTo(Reservation.RESERVED);
        CompletableFuture<Reservation> waiting = reserveOnAnotherThread(memory, 500, WAIT_MS);
        awaitWaiters(memory, 1);

        memory.release(300); // 400 free: not enough
        assertThat(memory.waitingThreads()).isEqualTo(1);
        assertThat(waiting).isNotDone();
        memory.release(100);
        assertThat(waiting.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(Reservation.RESERVED);
        assertThat(memory.availableBytes()).isZero();
    }

    @Test
    @DisplayName("PRO-5 waiters are served first come, first served: a small later one does not overtake a large earlier one, and each gets room in turn")
    void firstComeFirstServed() throws Exception {
        BufferMemory memory = new BufferMemory(1_000);
        assertThat(memory.reserve(1_000, 0)).isEqualTo(Reservation.RESERVED);
        CompletableFuture<Reservation> large = reserveOnAnotherThread(memory, 800, WAIT_MS);
        awaitWaiters(memory, 1);
        CompletableFuture<Reservation> small = reserveOnAnotherThread(memory, 100, WAIT_MS);
        awaitWaiters(memory, 2);
        assertThat(memory.reserve(1, 0)).as("a newcomer while others wait").isEqualTo(Reservation.TIMED_OUT);

        memory.release(500); // enough for the small one, not for the large one ahead of it
        assertThat(memory.waitingThreads()).isEqualTo(2);
        assertThat(small).isNotDone();

        memory.release(500); // 1,000 free: the large one, then the small one with what it left
        assertThat(large.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(Reservation.RESERVED);
        assertThat(small.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(Reservation.RESERVED);
        assertThat(memory.availableBytes()).isEqualTo(100);
    }

    @Test
    @DisplayName("PRO-5 a wait ends at its bound without room, takes nothing, and lets the next waiter have what is free")
    void waitEndsAtItsBound() throws Exception {
        BufferMemory memory = new BufferMemory(1_000);
        assertThat(memory.reserve(700, 0)).isEqualTo(Reservation.RESERVED);
        CompletableFuture<Reservation> large = reserveOnAnotherThread(memory, 900, 50);
        awaitWaiters(memory, 1);
        CompletableFuture<Reservation> small = reserveOnAnotherThread(memory, 200, WAIT_MS);

        assertThat(large.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(Reservation.TIMED_OUT);
        assertThat(small.get(WAIT_MS, TimeUnit.MILLISECONDS)).as("behind the one that gave up")
                .isEqualTo(Reservation.RESERVED);
        assertThat(memory.availableBytes()).isEqualTo(100);
    }

    @Test
    @DisplayName("PRO-5 close ends every wait (CLOSED) and refuses later reservations; an interrupted wait ends (INTERRUPTED) with the interrupt flag set again")
    void closeAndInterruptEndWaits() throws Exception {
        BufferMemory memory = new BufferMemory(100);
        assertThat(memory.reserve(100, 0)).isEqualTo(Reservation.RESERVED);
        CompletableFuture<Boolean> interruptedAgain = new CompletableFuture<>();
        Thread interrupted = new Thread(() -> {
            Reservation r = memory.reserve(50, WAIT_MS);
            interruptedAgain.complete(r == Reservation.INTERRUPTED && Thread.currentThread().isInterrupted());
        }, "interrupted-waiter");
        interrupted.start();
        awaitWaiters(memory, 1);
        interrupted.interrupt();
        assertThat(interruptedAgain.get(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();

        List<CompletableFuture<Reservation>> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiting.add(reserveOnAnotherThread(memory, 10, WAIT_MS));
        }
        awaitWaiters(memory, 3);
        memory.close();
        for (CompletableFuture<Reservation> w : waiting) {
            assertThat(w.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(Reservation.CLOSED);
        }
        memory.release(100);
        assertThat(memory.reserve(1, 0)).isEqualTo(Reservation.CLOSED);
    }

    @Test
    @DisplayName("PRO-5 bad input changes nothing: a release beyond what was taken, a negative one, or a reservation above the bound is refused")
    void badInputChangesNothing() {
        assertThatThrownBy(() -> new BufferMemory(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("buffer.memory");
        BufferMemory memory = new BufferMemory(1_000);
        assertThat(memory.reserve(300, 0)).isEqualTo(Reservation.RESERVED);
        assertThatThrownBy(() -> memory.release(301)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("without its reservation");
        assertThatThrownBy(() -> memory.release(-1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> memory.reserve(1_001, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(memory.availableBytes()).isEqualTo(700);
    }
}
