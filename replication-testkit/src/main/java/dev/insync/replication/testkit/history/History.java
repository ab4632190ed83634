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

package dev.insync.replication.testkit.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * An append-only, ordered list of {@link HistoryEvent}s, written as JSON lines. Appends come from
 * the single simulation loop, so no locking is needed there; the list is synchronized anyway so a
 * real-time cluster can record too.
 */
public final class History {

    private final List<HistoryEvent> events = Collections.synchronizedList(new ArrayList<>());

    /** Records one event. */
    public void add(HistoryEvent event) {
        events.add(event);
    }

    /** A snapshot of the events in order. */
    public List<HistoryEvent> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /** The events as JSON lines, one object per line, in event order. */
    public String toJsonLines() {
        StringBuilder sb = new StringBuilder();
        for (HistoryEvent e : events()) {
            sb.append(Json.write(e.toJson())).append('\n');
        }
        return sb.toString();
    }

    /** Writes {@link #toJsonLines()} to {@code file}. */
    public void writeTo(Path file) {
        try {
            Files.writeString(file, toJsonLines(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write history " + file, e);
        }
    }

    /**
     * Reads a history written by {@link #writeTo}.
     *
     * @throws IllegalArgumentException naming the line of the first malformed event
     */
    public static History parse(String jsonLines) {
        History history = new History();
        String[] lines = jsonLines.split("\n");
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            try {
                @SuppressWarnings("unchecked")
                Map<String, Object> m = (Map<String, Object>) Json.read(lines[i]);
                history.add(HistoryEvent.fromJson(m));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("History line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return history;
    }
}
