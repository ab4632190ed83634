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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The clean-shutdown marker {@code .kafka_cleanshutdown} (LOG-9, LDR-5): a clean stop leaves
 * {@code {"version":0,"brokerEpoch":E}} in the log directory; its absence at start-up means the last
 * stop was unclean. Written atomically like every checkpoint; parsed strictly (a tiny JSON reader
 * for exactly this object: the two integer fields in any order, whitespace allowed, nothing else).
 */
public final class CleanShutdownFile {

    /** The marker's file name. */
    public static final String FILE_NAME = ".kafka_cleanshutdown";
    /** The only version written and accepted. */
    public static final int VERSION = 0;

    private final Path file;
    private final FileSync fileSync;

    /** A durable marker ({@link FileSync#durable()}). */
    public CleanShutdownFile(Path file) {
        this(file, FileSync.durable());
    }

    /**
     * @param file     the marker file, usually {@code <logdir>/.kafka_cleanshutdown}
     * @param fileSync the owning directory's durability and fault hook
     */
    public CleanShutdownFile(Path file, FileSync fileSync) {
        this.file = Objects.requireNonNull(file, "file");
        this.fileSync = Objects.requireNonNull(fileSync, "fileSync");
    }

    /** The marker file. */
    public Path file() {
        return file;
    }

    /** Whether the marker exists. */
    public boolean exists() {
        return Files.exists(file);
    }

    /**
     * Atomically writes the marker with this broker epoch.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR on an I/O failure
     */
    public void write(long brokerEpoch) {
        AtomicFileWrite.replace(file, writer ->
                writer.write("{\"version\":" + VERSION + ",\"brokerEpoch\":" + brokerEpoch + "}"), fileSync);
    }

    /**
     * The broker epoch in the marker, or empty if there is none.
     *
     * @throws CorruptCheckpointException naming the file if it is not exactly the expected object
     * @throws ApiException               KAFKA_STORAGE_ERROR on an I/O failure
     */
    public OptionalLong read() {
        String content;
        try {
            content = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        } catch (IOException e) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not read " + file + ": " + e, e);
        }
        Map<String, Long> fields = new Parser(content).parseObject();
        Long version = fields.get("version");
        Long brokerEpoch = fields.get("brokerEpoch");
        if (version == null || brokerEpoch == null || fields.size() != 2) {
            throw corrupt("expected exactly the fields version and brokerEpoch but found " + fields.keySet());
        }
        if (version != VERSION) {
            throw corrupt("unsupported version " + version + " (expected " + VERSION + ")");
        }
        return OptionalLong.of(brokerEpoch);
    }

    /**
     * Deletes the marker (and makes the deletion durable), so that a crash from now on counts as
     * unclean (LDR-5).
     *
     * @throws ApiException KAFKA_STORAGE_ERROR on an I/O failure
     */
    public void delete() {
        try {
            if (Files.exists(file)) {
                fileSync.beforeWrite(file);
                if (Files.deleteIfExists(file)) {
                    fileSync.fsyncDirectory(file.toAbsolutePath().getParent());
                }
            }
        } catch (IOException e) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not delete " + file + ": " + e, e);
        }
    }

    private CorruptCheckpointException corrupt(String reason) {
        return new CorruptCheckpointException(file, 1, reason, null);
    }

    /** A strict reader of one flat JSON object whose values are integers. */
    private final class Parser {
        private final String text;
        private int pos;

        Parser(String text) {
            this.text = text;
        }

        Map<String, Long> parseObject() {
            Map<String, Long> fields = new HashMap<>();
            skipWhitespace();
            expect('{');
            skipWhitespace();
            if (peek() == '}') {
                pos++;
            } else {
                while (true) {
                    skipWhitespace();
                    String key = parseString();
                    skipWhitespace();
                    expect(':');
                    skipWhitespace();
                    long value = parseLong();
                    if (fields.put(key, value) != null) {
                        throw error("duplicate field \"" + key + "\"");
                    }
                    skipWhitespace();
                    char c = next();
                    if (c == '}') {
                        break;
                    }
                    if (c != ',') {
                        throw error("expected ',' or '}' but found '" + c + "'");
                    }
                }
            }
            skipWhitespace();
            if (pos != text.length()) {
                throw error("trailing content");
            }
            return fields;
        }

        private String parseString() {
            expect('"');
            int start = pos;
            while (pos < text.length() && text.charAt(pos) != '"') {
                if (text.charAt(pos) == '\\') {
                    throw error("escapes are not expected in a field name");
                }
                pos++;
            }
            String s = text.substring(start, pos);
            expect('"');
            return s;
        }

        private long parseLong() {
            int start = pos;
            if (peek() == '-') {
                pos++;
            }
            while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
                pos++;
            }
            String number = text.substring(start, pos);
            try {
                return Long.parseLong(number);
            } catch (NumberFormatException e) {
                throw error("expected an integer but found '" + number + "'");
            }
        }

        private void expect(char expected) {
            char c = next();
            if (c != expected) {
                throw error("expected '" + expected + "' but found '" + c + "'");
            }
        }

        private char next() {
            if (pos >= text.length()) {
                throw error("unexpected end of file");
            }
            return text.charAt(pos++);
        }

        private char peek() {
            return pos < text.length() ? text.charAt(pos) : '\0';
        }

        private void skipWhitespace() {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                pos++;
            }
        }

        private CorruptCheckpointException error(String reason) {
            int line = 1 + (int) text.substring(0, Math.min(pos, text.length())).chars().filter(c -> c == '\n').count();
            return new CorruptCheckpointException(file, line,
                    reason + " at character " + pos + " in '" + text.strip() + "'", null);
        }
    }

    @Override
    public String toString() {
        return "CleanShutdownFile(" + file + ")";
    }
}
