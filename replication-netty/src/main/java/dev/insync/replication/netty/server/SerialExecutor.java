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

package dev.insync.replication.netty.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs one connection's handler calls one at a time, in submission order, on a shared pool: a
 * connection's produce requests reach the log in the order they were sent, while connections run in
 * parallel. Holds no thread of its own.
 */
final class SerialExecutor implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

    private final Executor pool;
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private boolean running;

    SerialExecutor(Executor pool) {
        this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        submitDrain();
    }

    /** Whether no call is queued or running: a call made now on the caller's thread keeps the order. */
    synchronized boolean idle() {
        return !running;
    }

    private void submitDrain() {
        try {
            pool.execute(this::drain);
        } catch (RejectedExecutionException e) {
            synchronized (this) {
                LOG.debug("Request pool rejected {} queued handler calls (shutting down)", tasks.size());
                tasks.clear();
                running = false;
            }
        }
    }

    private void drain() {
        Runnable task;
        synchronized (this) {
            task = tasks.poll();
            if (task == null) {
                running = false;
                return;
            }
        }
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.error("Request handler task failed", e);
        }
        synchronized (this) {
            if (tasks.isEmpty()) {
                running = false; // no second pool turn (and thread wake-up) just to find the queue empty
                return;
            }
        }
        // One task per pool turn, so a busy connection does not hold a pool thread forever.
        submitDrain();
    }
}
