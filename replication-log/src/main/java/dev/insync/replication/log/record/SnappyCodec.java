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

import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyError;
import org.xerial.snappy.SnappyOutputStream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * snappy (codec 2) in snappy-java's framing, which is what Kafka's producer writes
 * ({@code SnappyOutputStream}, 32 KiB blocks): a 16-byte header (the 8-byte magic
 * {@code 0x82 "SNAPPY" 0x00}, then version and compatible version as int32), then chunks of int32
 * compressed length + one raw snappy block. Input without the magic is read as one raw snappy
 * block, as snappy-java's own reader does. Loaded only through {@link CompressionCodecs} once
 * org.xerial.snappy:snappy-java is known to be on the class path.
 *
 * <p>Reading walks the chunks here rather than through {@code SnappyInputStream} so that every
 * allocation is checked first: a chunk's declared length against the bytes present, its declared
 * uncompressed length against the {@link DecompressionBuffer}'s bound.
 */
final class SnappyCodec implements CompressionCodec {

    /** Kafka's snappy block size (snappy-java's default). */
    private static final int BLOCK_BYTES = 32 * 1024;
    private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    /** Magic, version int32, compatible version int32. */
    private static final int HEADER_BYTES = MAGIC.length + 8;

    @Override
    public CompressionType type() {
        return CompressionType.SNAPPY;
    }

    @Override
    public byte[] compress(byte[] src, int offset, int length) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, length / 2));
        try (SnappyOutputStream snappy = new SnappyOutputStream(out, BLOCK_BYTES)) {
            snappy.write(src, offset, length);
        } catch (SnappyError e) {
            throw new IOException(e.getMessage(), e);
        }
        return out.toByteArray();
    }

    @Override
    public void decompress(ByteBuffer src, DecompressionBuffer out) throws IOException {
        CompressionCodecs.Slice s = CompressionCodecs.Slice.of(src);
        byte[] a = s.array();
        int start = s.offset();
        int end = start + s.length();
        try {
            if (!hasMagic(a, start, end)) {
                block(a, start, end - start, out);
                return;
            }
            int pos = start + HEADER_BYTES;
            while (pos < end) {
                if (end - pos < 4) {
                    throw new IOException("snappy stream ends inside a chunk length at byte " + (pos - start));
                }
                int length = ((a[pos] & 0xff) << 24) | ((a[pos + 1] & 0xff) << 16) | ((a[pos + 2] & 0xff) << 8)
                        | (a[pos + 3] & 0xff);
                pos += 4;
                if (length <= 0 || length > end - pos) {
                    throw new IOException("snappy chunk at byte " + (pos - 4 - start) + " declares " + length
                            + " bytes but " + (end - pos) + " remain");
                }
                block(a, pos, length, out);
                pos += length;
            }
        } catch (SnappyError e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static boolean hasMagic(byte[] a, int start, int end) {
        if (end - start < HEADER_BYTES) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (a[start + i] != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    /** One raw snappy block, its declared size checked against the bound before anything is allocated. */
    private static void block(byte[] a, int offset, int length, DecompressionBuffer out) throws IOException {
        int uncompressed = Snappy.uncompressedLength(a, offset, length);
        if (uncompressed < 0) {
            throw new IOException("snappy block declares a negative uncompressed length " + uncompressed);
        }
        int at = out.reserve(uncompressed);
        int written = Snappy.uncompress(a, offset, length, out.array(), at);
        if (written != uncompressed) {
            throw new IOException("snappy block declares " + uncompressed + " bytes but holds " + written);
        }
        out.advance(written);
    }
}
