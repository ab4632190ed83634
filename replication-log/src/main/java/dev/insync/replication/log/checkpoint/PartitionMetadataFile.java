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
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A partition directory's {@code partition.metadata}: the id of the topic its log belongs to, in
 * Kafka's format ({@code version: 0} and {@code topic_id: <id>} on two lines, the id as Kafka
 * prints one: 16 bytes, URL-safe base64 without padding). A broker that finds a log of a topic
 * name under another id than the metadata names holds a deleted topic's log and must not serve it
 * as the new topic's. Written atomically like every checkpoint; parsed strictly.
 */
public final class PartitionMetadataFile {

    /** The file's name inside a partition directory. */
    public static final String FILE_NAME = "partition.metadata";
    /** The only version written and accepted. */
    public static final int VERSION = 0;

    private final Path file;
    private final FileSync fileSync;

    /**
     * @param partitionDir the log's directory, {@code <logdir>/<topic>-<partition>}
     * @param fileSync     the owning directory's durability and fault hook
     */
    public PartitionMetadataFile(Path partitionDir, FileSync fileSync) {
        this.file = Objects.requireNonNull(partitionDir, "partitionDir").resolve(FILE_NAME);
        this.fileSync = Objects.requireNonNull(fileSync, "fileSync");
    }

    /** The file. */
    public Path file() {
        return file;
    }

    /**
     * Atomically writes {@code topicId}.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR on an I/O failure
     */
    public void write(UUID topicId) {
        String id = format(Objects.requireNonNull(topicId, "topicId"));
        AtomicFileWrite.replace(file, writer -> writer.write("version: " + VERSION + "\ntopic_id: " + id + "\n"), fileSync);
    }

    /**
     * The topic id in the file, or empty if there is no file (a log written before topic ids).
     *
     * @throws CorruptCheckpointException naming the file and line if it is not exactly the format above
     * @throws ApiException               KAFKA_STORAGE_ERROR on an I/O failure
     */
    public Optional<UUID> read() {
        String content;
        try {
            content = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not read " + file + ": " + e, e);
        }
        List<String> lines = content.lines().toList();
        if (lines.size() != 2) {
            throw corrupt(1, "expected 2 lines (version, topic_id), found " + lines.size());
        }
        if (!lines.get(0).equals("version: " + VERSION)) {
            throw corrupt(1, "expected 'version: " + VERSION + "', found '" + lines.get(0) + "'");
        }
        String prefix = "topic_id: ";
        if (!lines.get(1).startsWith(prefix)) {
            throw corrupt(2, "expected 'topic_id: <id>', found '" + lines.get(1) + "'");
        }
        try {
            return Optional.of(parse(lines.get(1).substring(prefix.length())));
        } catch (IllegalArgumentException e) {
            throw corrupt(2, e.getMessage());
        }
    }

    /** Kafka's text form of a topic id: its 16 bytes (most significant first), URL-safe base64, no padding. */
    public static String format(UUID id) {
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    /**
     * The id {@link #format} printed.
     *
     * @throws IllegalArgumentException if {@code text} is not 22 characters of URL-safe base64 for 16 bytes
     */
    public static UUID parse(String text) {
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("topic id '" + text + "' is not URL-safe base64");
        }
        if (bytes.length != 16 || text.length() != 22) {
            throw new IllegalArgumentException("topic id '" + text + "' is not 16 bytes");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        return new UUID(buffer.getLong(), buffer.getLong());
    }

    private CorruptCheckpointException corrupt(int line, String reason) {
        return new CorruptCheckpointException(file, line, reason, null);
    }
}
