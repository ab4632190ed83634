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

package dev.insync.replication.log.record;

import java.util.Objects;

/**
 * The compression codec of a v2 batch: attribute bits 0-2 (LOG-1), with Kafka's ids and names (the
 * names are Kafka's {@code compression.type} values). gzip comes with the JDK; snappy, lz4 and zstd
 * need the libraries Kafka uses, optional dependencies of replication-log that an embedder adds
 * (see {@link #isAvailable()} and docs/log-format.md).
 */
public enum CompressionType {
    /** Records stored as they are. */
    NONE(0, "none", null),
    /** A {@code java.util.zip} GZIP stream. */
    GZIP(1, "gzip", null),
    /** snappy-java's framed stream ({@code SnappyOutputStream}). */
    SNAPPY(2, "snappy", "org.xerial.snappy:snappy-java"),
    /** An LZ4 frame as Kafka writes it (64 KiB independent blocks, no checksums), by lz4-java. */
    LZ4(3, "lz4", "at.yawk.lz4:lz4-java"),
    /** A zstd frame, by zstd-jni. */
    ZSTD(4, "zstd", "com.github.luben:zstd-jni");

    private final int id;
    private final String codecName;
    private final String artifact;

    CompressionType(int id, String codecName, String artifact) {
        this.id = id;
        this.codecName = codecName;
        this.artifact = artifact;
    }

    /** The id stored in attribute bits 0-2. */
    public int id() {
        return id;
    }

    /** Kafka's name: none, gzip, snappy, lz4 or zstd (as {@code kafka-dump-log.sh} prints it). */
    public String codecName() {
        return codecName;
    }

    /** The Maven coordinates of the library this codec needs, or null for none and gzip (the JDK). */
    public String artifact() {
        return artifact;
    }

    /**
     * Whether batches of this codec can be read and written in this JVM: always for NONE and GZIP;
     * for the others, whether the codec library is on the class path and works here (its native
     * code loads). The answer is found once and then kept.
     */
    public boolean isAvailable() {
        return this == NONE || CompressionCodecs.isAvailable(this);
    }

    /**
     * The type stored as {@code id}.
     *
     * @throws IllegalArgumentException for an id other than 0-4 (5-7 fit the bits but name no codec)
     */
    public static CompressionType forId(int id) {
        for (CompressionType t : values()) {
            if (t.id == id) {
                return t;
            }
        }
        throw new IllegalArgumentException("Unknown compression codec id " + id);
    }

    /**
     * The type of a Kafka name (case-insensitive, as Kafka's {@code compression.type}).
     *
     * @throws IllegalArgumentException naming the value if it is none of the five
     */
    public static CompressionType forName(String name) {
        Objects.requireNonNull(name, "name");
        for (CompressionType t : values()) {
            if (t.codecName.equalsIgnoreCase(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("Unknown compression type '" + name + "'; expected none, gzip, snappy, lz4 or zstd");
    }

    @Override
    public String toString() {
        return codecName;
    }
}
