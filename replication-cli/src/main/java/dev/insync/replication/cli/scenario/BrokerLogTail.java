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

package dev.insync.replication.cli.scenario;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The brokers' own log lines as they write them to their output files ({@code ProcessCluster}'s
 * {@code broker-<id>.log}, which a restart appends to), each stamped with the wall-clock time this
 * process first saw it. A daemon thread reads what was appended every {@value #POLL_MS} ms, so a line's
 * {@code seenAtMs} is at most that much (plus the machine's scheduling delay) after the broker wrote it,
 * never before: "seen more than X after T" holds whenever "written more than X after T" does.
 */
final class BrokerLogTail implements AutoCloseable {

    /** How often the files are read. */
    static final long POLL_MS = 20;

    /**
     * One line a broker wrote.
     *
     * @param index    its place among every line seen (of every broker), from 0
     * @param broker   the broker's id
     * @param seenAtMs wall-clock milliseconds when it was first read
     * @param text     the line
     */
    record Line(int index, int broker, long seenAtMs, String text) {
    }

    private final Map<Integer, Path> files;
    private final Map<Integer, Long> positions = new TreeMap<>();
    private final Map<Integer, StringBuilder> partial = new TreeMap<>();
    private final List<Line> lines = new ArrayList<>();
    private final Thread reader;
    private volatile boolean closed;

    /** Follows {@code files} (broker id to its output file, which may not exist yet) from their current ends. */
    BrokerLogTail(Map<Integer, Path> files) {
        this.files = new TreeMap<>(files);
        for (Map.Entry<Integer, Path> e : this.files.entrySet()) {
            positions.put(e.getKey(), sizeOf(e.getValue()));
            partial.put(e.getKey(), new StringBuilder());
        }
        reader = new Thread(this::readLoop, "scenario-broker-log-tail");
        reader.setDaemon(true);
        reader.start();
    }

    private void readLoop() {
        while (!closed) {
            readOnce();
            try {
                Thread.sleep(POLL_MS); // the polling period of a file tail, not a synchronisation
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Reads what every file gained since the last read. */
    synchronized void readOnce() {
        long now = System.currentTimeMillis();
        for (Map.Entry<Integer, Path> e : files.entrySet()) {
            int broker = e.getKey();
            Path file = e.getValue();
            long from = positions.get(broker);
            long size = sizeOf(file);
            if (size <= from) {
                continue;
            }
            byte[] bytes = new byte[(int) Math.min(size - from, 4 << 20)];
            try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
                in.seek(from);
                in.readFully(bytes);
            } catch (IOException ex) {
                continue; // read again next time
            }
            positions.put(broker, from + bytes.length);
            StringBuilder pending = partial.get(broker);
            // Lines are ASCII in practice; a multi-byte character cut at the end only garbles that line.
            pending.append(new String(bytes, StandardCharsets.UTF_8));
            int newline;
            while ((newline = pending.indexOf("\n")) >= 0) {
                lines.add(new Line(lines.size(), broker, now, pending.substring(0, newline)));
                pending.delete(0, newline + 1);
            }
        }
    }

    /** How many lines were seen so far: a mark for {@link #since}. */
    synchronized int mark() {
        return lines.size();
    }

    /** The lines of {@code broker} seen since {@code mark}. */
    synchronized List<Line> since(int mark, int broker) {
        return lines.subList(Math.min(mark, lines.size()), lines.size()).stream().filter(l -> l.broker() == broker).toList();
    }

    /** The first line of {@code broker} since {@code mark} that {@code matches}, if one was seen. */
    Optional<Line> first(int mark, int broker, Predicate<String> matches) {
        readOnce();
        return since(mark, broker).stream().filter(l -> matches.test(l.text())).findFirst();
    }

    private static long sizeOf(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    @Override
    public void close() {
        closed = true;
        reader.interrupt();
        try {
            reader.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
