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

package dev.insync.replication.testkit.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;

/**
 * What a machine crash does to a partition directory: bytes written after the last flush (the
 * recovery point) are lost, and the last write may be torn, leaving a random prefix of the lost
 * bytes (LOG-11). Checkpoint files are written with fsync and rename (LOG-9), so they survive whole.
 * Applied to the files of a broker that is already down.
 */
final class PowerLoss {

    /** Offset of {@code lastOffsetDelta} inside a batch header. */
    private static final int LAST_OFFSET_DELTA_POSITION = 23;
    private static final int LOG_OVERHEAD = 12;

    private PowerLoss() {
    }

    /**
     * Cuts every segment of {@code partitionDir} back to the batches wholly below
     * {@code recoveryPoint}, keeping a random torn prefix of what follows with probability one half.
     */
    static void discardUnflushed(Path partitionDir, long recoveryPoint, RandomGenerator random) {
        List<Path> segments;
        try (Stream<Path> files = Files.list(partitionDir)) {
            segments = files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + partitionDir, e);
        }
        for (Path segment : segments) {
            long baseOffset = Long.parseLong(segment.getFileName().toString().replace(".log", ""));
            if (baseOffset >= recoveryPoint && baseOffset > 0) {
                deleteSegment(segment);
            } else {
                cut(segment, recoveryPoint, random);
            }
        }
    }

    private static void deleteSegment(Path segment) {
        String stem = segment.getFileName().toString().replace(".log", "");
        try {
            Files.deleteIfExists(segment);
            Files.deleteIfExists(segment.resolveSibling(stem + ".index"));
            Files.deleteIfExists(segment.resolveSibling(stem + ".timeindex"));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete unflushed segment " + segment, e);
        }
    }

    private static void cut(Path segment, long recoveryPoint, RandomGenerator random) {
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            long position = 0;
            ByteBuffer header = ByteBuffer.allocate(LAST_OFFSET_DELTA_POSITION + 4);
            while (position + header.capacity() <= size) {
                header.clear();
                channel.read(header, position);
                long baseOffset = header.getLong(0);
                int batchLength = header.getInt(8);
                long lastOffset = baseOffset + header.getInt(LAST_OFFSET_DELTA_POSITION);
                long end = position + LOG_OVERHEAD + batchLength;
                if (batchLength <= 0 || end > size || lastOffset >= recoveryPoint) {
                    break;
                }
                position = end;
            }
            long keep = position;
            if (size > position && random.nextBoolean()) {
                keep += random.nextLong(size - position);
            }
            channel.truncate(keep);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot cut unflushed bytes of " + segment, e);
        }
    }
}
