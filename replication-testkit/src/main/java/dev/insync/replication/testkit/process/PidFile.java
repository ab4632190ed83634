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
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;

/**
 * What a {@link ProcessGroup} writes for each process it starts, so that a later run can tell a
 * leftover (its owner JVM is gone) from a process of a run still going on, and can tell the same
 * process from a newer one that happens to reuse the PID (the start time must match).
 *
 * @param pid            the child process
 * @param startMs        its start time, epoch milliseconds, as {@link ProcessHandle.Info#startInstant()} reports it
 * @param ownerPid       the JVM that started it
 * @param ownerStartMs   that JVM's start time, epoch milliseconds
 * @param name           the child's {@link JvmSpec#name()}, for people reading the directory
 */
record PidFile(long pid, long startMs, long ownerPid, long ownerStartMs, String name) {

    /** File name suffix; a PID is unique among live processes, so {@code <pid>.pid} never collides. */
    static final String SUFFIX = ".pid";

    /**
     * How far two readings of one process's start time may differ: the JDK derives it from the
     * boot time, which the kernel recomputes from the wall clock, so clock adjustments move it a little.
     */
    static final long START_TOLERANCE_MS = 2_000;

    /** The record of {@code handle}, started by this JVM. */
    static PidFile of(ProcessHandle handle, String name) {
        ProcessHandle self = ProcessHandle.current();
        return new PidFile(handle.pid(), startMs(handle).orElse(-1L), self.pid(), startMs(self).orElse(-1L), name);
    }

    /** Where the record of {@code pid} lives in {@code dir}. */
    static Path path(Path dir, long pid) {
        return dir.resolve(pid + SUFFIX);
    }

    /** Writes the record atomically (a reader never sees half a file). */
    void write(Path dir) throws IOException {
        Files.createDirectories(dir);
        String text = "pid=" + pid + "\nstartMs=" + startMs + "\nownerPid=" + ownerPid + "\nownerStartMs=" + ownerStartMs
                + "\nname=" + name + "\n";
        Path tmp = dir.resolve(pid + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, path(dir, pid), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Reads a record; a clear error naming the file if it is not one. */
    static PidFile read(Path file) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
        try {
            return new PidFile(Long.parseLong(p.getProperty("pid")), Long.parseLong(p.getProperty("startMs")),
                    Long.parseLong(p.getProperty("ownerPid")), Long.parseLong(p.getProperty("ownerStartMs")),
                    p.getProperty("name", "?"));
        } catch (NumberFormatException e) {
            throw new IOException("Not a PID file of a process group: " + file + " (" + e.getMessage() + ")", e);
        }
    }

    /** The live process this record names, if it is still the same process (same PID and start time). */
    Optional<ProcessHandle> liveProcess() {
        return sameProcess(pid, startMs);
    }

    /** Whether the JVM that wrote this record is still running. */
    boolean ownerAlive() {
        return sameProcess(ownerPid, ownerStartMs).isPresent();
    }

    private static Optional<ProcessHandle> sameProcess(long pid, long startMs) {
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(h -> startMs >= 0 && startMs(h).map(s -> Math.abs(s - startMs) <= START_TOLERANCE_MS).orElse(false));
    }

    private static Optional<Long> startMs(ProcessHandle handle) {
        return handle.info().startInstant().map(Instant::toEpochMilli);
    }
}
