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

package dev.insync.replication.log.checkpoint;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.FileSync;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * LOG-9: one text format for every checkpoint file. Line 1 is the version ({@value #VERSION}),
 * line 2 the number of entries, then one entry per line in the given {@link EntryFormat}.
 *
 * <p>Reads are strict: a missing or zero-byte file has no entries, but a bad version, a count that
 * does not match the lines, or an unparsable line is a {@link CorruptCheckpointException} naming
 * the file and line, never a silent reset. Writes replace the file atomically (temp file, fsync,
 * rename, directory fsync, all through the directory's {@link FileSync}) and are serialized; use one
 * instance per file.
 *
 * @param <T> the entry type
 */
public final class CheckpointFile<T> {

    /** The only version written and accepted. */
    public static final int VERSION = 0;

    private final Path file;
    private final EntryFormat<T> format;
    private final FileSync fileSync;
    private final Object writeLock = new Object();

    /** A durable checkpoint file ({@link FileSync#durable()}). */
    public CheckpointFile(Path file, EntryFormat<T> format) {
        this(file, format, FileSync.durable());
    }

    /**
     * @param file     the checkpoint file; its directory must exist when writing
     * @param format   how entries map to lines
     * @param fileSync the owning directory's durability and fault hook
     */
    public CheckpointFile(Path file, EntryFormat<T> format, FileSync fileSync) {
        this.file = Objects.requireNonNull(file, "file");
        this.format = Objects.requireNonNull(format, "format");
        this.fileSync = Objects.requireNonNull(fileSync, "fileSync");
    }

    /** The checkpoint file. */
    public Path file() {
        return file;
    }

    /**
     * Atomically replaces the file with these entries, in iteration order. If formatting an entry
     * or the I/O fails, the old file is left as it was.
     *
     * @throws IllegalArgumentException if an entry cannot be formatted or its line contains a line break
     * @throws ApiException             KAFKA_STORAGE_ERROR naming the file on an I/O failure
     */
    public void write(Collection<? extends T> entries) {
        List<T> snapshot = List.copyOf(entries);
        synchronized (writeLock) {
            AtomicFileWrite.replace(file, writer -> {
                writer.write(Integer.toString(VERSION));
                writer.write('\n');
                writer.write(Integer.toString(snapshot.size()));
                writer.write('\n');
                for (T entry : snapshot) {
                    String line = format.format(entry);
                    if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
                        throw new IllegalArgumentException("Entry " + entry + " for " + file
                                + " formats to more than one line");
                    }
                    writer.write(line);
                    writer.write('\n');
                }
            }, fileSync);
        }
    }

    /**
     * Reads every entry; a missing or zero-byte file has none.
     *
     * @throws CorruptCheckpointException naming the file and line if the content is malformed
     * @throws ApiException               KAFKA_STORAGE_ERROR naming the file on an I/O failure
     */
    public List<T> read() {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(reader);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not read " + file + ": " + e, e);
        }
    }

    private List<T> read(BufferedReader reader) throws IOException {
        String versionLine = reader.readLine();
        if (versionLine == null) {
            return List.of();
        }
        int version = parseHeaderNumber(versionLine, 1, "version");
        if (version != VERSION) {
            throw corrupt(1, "unsupported version " + version + " (expected " + VERSION + ")", null);
        }
        String countLine = reader.readLine();
        if (countLine == null) {
            throw corrupt(2, "missing the entry count", null);
        }
        int expected = parseHeaderNumber(countLine, 2, "entry count");
        List<T> entries = new ArrayList<>(Math.min(expected, 1024));
        int lineNumber = 2;
        String line;
        while ((line = reader.readLine()) != null) {
            lineNumber++;
            if (entries.size() == expected) {
                throw corrupt(lineNumber, "more entries than the count " + expected, null);
            }
            entries.add(parseEntry(line, lineNumber));
        }
        if (entries.size() != expected) {
            throw corrupt(lineNumber + 1, "expected " + expected + " entries but found only " + entries.size(), null);
        }
        return List.copyOf(entries);
    }

    private int parseHeaderNumber(String line, int lineNumber, String what) {
        try {
            return EntryFormat.nonNegativeInt(line, what);
        } catch (IllegalArgumentException e) {
            throw corrupt(lineNumber, "bad " + what + " line '" + line + "'", e);
        }
    }

    private T parseEntry(String line, int lineNumber) {
        T entry;
        try {
            entry = format.parse(line);
        } catch (RuntimeException e) {
            throw corrupt(lineNumber, "unparsable entry '" + line + "': " + e.getMessage(), e);
        }
        if (entry == null) {
            throw corrupt(lineNumber, "unparsable entry '" + line + "'", null);
        }
        return entry;
    }

    private CorruptCheckpointException corrupt(int lineNumber, String reason, Throwable cause) {
        return new CorruptCheckpointException(file, lineNumber, reason, cause);
    }

    @Override
    public String toString() {
        return "CheckpointFile(" + file + ")";
    }
}
