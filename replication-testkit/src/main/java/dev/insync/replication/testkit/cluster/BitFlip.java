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

import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.OffsetCheckpointFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;

/**
 * A disk that flipped one bit in data the broker had not flushed yet: applied to a crashed broker's
 * files, in a batch at or above the partition's checkpointed recovery point (the region recovery
 * rescans, LOG-7) and inside the bytes the batch's CRC-32C covers (from {@code attributes} to the
 * end, LOG-1), so that recovery must find it and cut the log at that batch. (A flip in
 * {@code baseOffset} or {@code partitionLeaderEpoch}, which the CRC does not cover, is a different
 * fault: Kafka's format cannot detect it either.)
 */
public final class BitFlip {

    /** Offset of {@code attributes}, the first byte the CRC covers, inside a batch. */
    private static final int CRC_COVERED_FROM = 21;
    private static final int LOG_OVERHEAD = 12;

    /**
     * What was flipped.
     *
     * @param topicPartition the partition
     * @param segment        the segment file's name
     * @param position       byte position in the segment file
     * @param bit            bit index 0..7 in that byte
     * @param batchBaseOffset base offset of the batch it hit
     */
    public record Flipped(TopicPartition topicPartition, String segment, long position, int bit, long batchBaseOffset) {
    }

    private BitFlip() {
    }

    private record Candidate(TopicPartition tp, Path segment, long batchPosition, int batchLength, long baseOffset) {
    }

    /**
     * Flips one bit in a random batch above the recovery point of a random partition in any of
     * {@code logDirs} (each with its own recovery-point checkpoint); empty when no partition has a
     * batch there.
     */
    static Optional<Flipped> flipAboveRecoveryPoint(List<Path> logDirs, RandomGenerator random) {
        List<Candidate> candidates = new ArrayList<>();
        for (Path logDir : logDirs) {
            collectCandidates(logDir, candidates);
        }
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        Candidate c = candidates.get(random.nextInt(candidates.size()));
        long covered = LOG_OVERHEAD + (long) c.batchLength() - CRC_COVERED_FROM;
        long position = c.batchPosition() + CRC_COVERED_FROM + random.nextLong(covered);
        int bit = random.nextInt(8);
        flip(c.segment(), position, bit);
        return Optional.of(new Flipped(c.tp(), c.segment().getFileName().toString(), position, bit, c.baseOffset()));
    }

    private static void collectCandidates(Path logDir, List<Candidate> candidates) {
        Map<TopicPartition, Long> recoveryPoints = new OffsetCheckpointFile(
                logDir.resolve(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT)).read();
        for (Path dir : list(logDir)) {
            TopicPartition tp;
            try {
                tp = TopicPartition.parse(dir.getFileName().toString());
            } catch (IllegalArgumentException e) {
                continue;
            }
            long recoveryPoint = recoveryPoints.getOrDefault(tp, 0L);
            for (Path segment : list(dir)) {
                if (segment.getFileName().toString().endsWith(".log")) {
                    scan(tp, segment, recoveryPoint, candidates);
                }
            }
        }
    }

    private static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.sorted().toList(); // sorted: the same seed flips the same bit (INV-6)
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + dir, e);
        }
    }

    private static void scan(TopicPartition tp, Path segment, long recoveryPoint, List<Candidate> out) {
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
            long size = channel.size();
            long position = 0;
            ByteBuffer header = ByteBuffer.allocate(LOG_OVERHEAD);
            while (position + LOG_OVERHEAD <= size) {
                header.clear();
                channel.read(header, position);
                long baseOffset = header.getLong(0);
                int batchLength = header.getInt(8);
                if (batchLength <= CRC_COVERED_FROM || position + LOG_OVERHEAD + batchLength > size) {
                    break; // a torn tail: recovery cuts it anyway
                }
                if (baseOffset >= recoveryPoint) {
                    out.add(new Candidate(tp, segment, position, batchLength, baseOffset));
                }
                position += LOG_OVERHEAD + batchLength;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot scan " + segment, e);
        }
    }

    private static void flip(Path segment, long position, int bit) {
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            channel.read(b, position);
            b.put(0, (byte) (b.get(0) ^ (1 << bit)));
            b.rewind();
            channel.write(b, position);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot flip bit " + bit + " at position " + position + " of " + segment, e);
        }
    }
}
