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

package dev.insync.replication.cli.dump;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file named like a segment file (LOG-2): {@code <base offset>.log}, {@code .index} or
 * {@code .timeindex}. The base offset is the part of the name before the first dot, as Kafka's
 * tools read it (normally 20 zero-padded digits, but any non-negative number is accepted).
 *
 * @param path       the file as the user named it
 * @param kind       which of the three segment files it is
 * @param baseOffset the base offset from the file name
 */
record SegmentFile(Path path, Kind kind, long baseOffset) {

    /** The segment file types dump-log reads, by suffix. */
    enum Kind {
        LOG(".log"), INDEX(".index"), TIME_INDEX(".timeindex");

        final String suffix;

        Kind(String suffix) {
            this.suffix = suffix;
        }
    }

    /**
     * Classifies {@code path} by its name; the file is not opened.
     *
     * @throws DumpException naming the file if the name is not {@code <base offset>.<log|index|timeindex>}
     */
    static SegmentFile of(Path path) {
        Path fileName = path.getFileName();
        String name = fileName == null ? path.toString() : fileName.toString();
        int dot = name.lastIndexOf('.');
        String suffix = dot < 0 ? "" : name.substring(dot);
        Kind kind = null;
        for (Kind k : Kind.values()) {
            if (k.suffix.equals(suffix)) {
                kind = k;
            }
        }
        if (kind == null) {
            throw new DumpException(path + " is not a segment file: expected a name ending in .log, .index or .timeindex");
        }
        String prefix = name.substring(0, name.indexOf('.'));
        long baseOffset;
        try {
            baseOffset = Long.parseLong(prefix);
        } catch (NumberFormatException e) {
            throw new DumpException(path + " is not a segment file: the name must start with the segment's base offset"
                    + " (e.g. 00000000000000000000" + kind.suffix + "), not '" + prefix + "'");
        }
        if (baseOffset < 0 || !prefix.chars().allMatch(Character::isDigit)) {
            throw new DumpException(path + " is not a segment file: base offset '" + prefix + "' is not a non-negative number");
        }
        return new SegmentFile(path, kind, baseOffset);
    }

    /** The sibling file of the same segment with another suffix (e.g. the .log of an .index). */
    Path sibling(Kind other) {
        String name = path.getFileName().toString();
        return path.resolveSibling(name.substring(0, name.indexOf('.')) + other.suffix);
    }

    /**
     * Maps a whole file read-only: the dump never writes, so it can read a live broker's segment.
     *
     * @throws DumpException naming the file if it is missing, a directory, or beyond 2 GiB (segment
     *         positions are int32)
     */
    static ByteBuffer mapReadOnly(Path file) throws IOException {
        if (!Files.exists(file)) {
            throw new DumpException("No such file: " + file);
        }
        if (Files.isDirectory(file)) {
            throw new DumpException(file + " is a directory, not a segment file");
        }
        if (!Files.isRegularFile(file)) {
            // A FIFO would block the read until a writer opened it.
            throw new DumpException(file + " is not a regular file (a FIFO, device or socket), not a segment file");
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE) {
                throw new DumpException(file + " is " + size + " bytes; segment files are at most "
                        + Integer.MAX_VALUE + " bytes (positions are int32)");
            }
            return ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
        }
    }
}
