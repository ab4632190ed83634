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

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * lz4 (codec 3): one LZ4 frame (lz4's frame format v1.5.1), as Kafka's producer writes it with its
 * own frame writer over lz4-java's block compressor. Loaded only through {@link CompressionCodecs}
 * once at.yawk.lz4:lz4-java (packages {@code net.jpountz.*}) is known to be on the class path.
 *
 * <pre>
 *   magic 0x184D2204 (int32 little-endian)
 *   FLG   version 01 (bits 7-6), independent blocks (5), block checksum (4), content size (3),
 *         content checksum (2), reserved 0 (1-0)   -- Kafka writes 0x60: version 1, independent blocks
 *   BD    block maximum size (bits 6-4: 4 = 64 KiB .. 7 = 4 MiB), the other bits 0  -- Kafka: 0x40
 *   [content size int64, if flagged]
 *   HC    second byte of XXH32(seed 0) over FLG .. content size: (hash >> 8) &amp; 0xff
 *   blocks: size int32 LE (top bit set: stored uncompressed), data, [XXH32 of the data, if flagged]
 *   end mark: size 0, then [XXH32 of the whole content, if flagged]
 * </pre>
 * Kafka writes no checksums but the header's; reading accepts and checks the optional ones, refuses
 * dependent blocks and reserved bits as Kafka's reader does, and refuses a block larger than the
 * frame's block size before decompressing it.
 */
final class Lz4Codec implements CompressionCodec {

    private static final int MAGIC = 0x184D2204;
    private static final int VERSION = 1;
    private static final int FLG_INDEPENDENT_BLOCKS = 1 << 5;
    private static final int FLG_BLOCK_CHECKSUM = 1 << 4;
    private static final int FLG_CONTENT_SIZE = 1 << 3;
    private static final int FLG_CONTENT_CHECKSUM = 1 << 2;
    private static final int FLG_RESERVED = 0x03;
    private static final int BD_RESERVED = 0x8f;
    /** Block maximum size code 4 = 64 KiB, Kafka's. */
    private static final int BLOCK_SIZE_CODE_64KB = 4;
    private static final int UNCOMPRESSED_BLOCK = 0x80000000;

    private final LZ4Compressor compressor = LZ4Factory.fastestInstance().fastCompressor();
    private final LZ4SafeDecompressor decompressor = LZ4Factory.fastestInstance().safeDecompressor();
    private final XXHash32 hash = XXHashFactory.fastestInstance().hash32();

    @Override
    public CompressionType type() {
        return CompressionType.LZ4;
    }

    @Override
    public byte[] compress(byte[] src, int offset, int length) throws IOException {
        int blockBytes = maxBlockBytes(BLOCK_SIZE_CODE_64KB);
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, length / 2));
        byte[] header = new byte[7];
        putIntLE(header, 0, MAGIC);
        header[4] = (byte) ((VERSION << 6) | FLG_INDEPENDENT_BLOCKS);
        header[5] = (byte) (BLOCK_SIZE_CODE_64KB << 4);
        header[6] = (byte) ((hash.hash(header, 4, 2, 0) >> 8) & 0xff);
        out.write(header);
        byte[] compressed = new byte[compressor.maxCompressedLength(blockBytes)];
        byte[] size = new byte[4];
        for (int at = offset; at < offset + length; at += blockBytes) {
            int n = Math.min(blockBytes, offset + length - at);
            int c = compressor.compress(src, at, n, compressed, 0, compressed.length);
            if (c >= n) { // incompressible: stored as is, flagged by the top bit
                putIntLE(size, 0, n | UNCOMPRESSED_BLOCK);
                out.write(size);
                out.write(src, at, n);
            } else {
                putIntLE(size, 0, c);
                out.write(size);
                out.write(compressed, 0, c);
            }
        }
        putIntLE(size, 0, 0);
        out.write(size);
        return out.toByteArray();
    }

    @Override
    public void decompress(ByteBuffer src, DecompressionBuffer out) throws IOException {
        CompressionCodecs.Slice s = CompressionCodecs.Slice.of(src);
        byte[] a = s.array();
        int start = s.offset();
        int end = start + s.length();
        if (end - start < 7) {
            throw new IOException("lz4 frame of " + (end - start) + " bytes is shorter than a frame header");
        }
        if (intLE(a, start) != MAGIC) {
            throw new IOException("lz4 frame starts with 0x" + Integer.toHexString(intLE(a, start))
                    + ", not the magic 0x184d2204");
        }
        int flg = a[start + 4] & 0xff;
        int bd = a[start + 5] & 0xff;
        if ((flg >>> 6) != VERSION || (flg & FLG_RESERVED) != 0 || (flg & FLG_INDEPENDENT_BLOCKS) == 0) {
            throw new IOException("lz4 frame flags 0x" + Integer.toHexString(flg)
                    + " are not version 1 with independent blocks and reserved bits 0");
        }
        int blockCode = (bd >>> 4) & 0x07;
        if ((bd & BD_RESERVED) != 0 || blockCode < 4) {
            throw new IOException("lz4 frame block descriptor 0x" + Integer.toHexString(bd) + " is invalid");
        }
        int descriptorEnd = start + 6 + ((flg & FLG_CONTENT_SIZE) != 0 ? 8 : 0);
        if (descriptorEnd >= end) {
            throw new IOException("lz4 frame ends inside its header");
        }
        int expectedHc = (hash.hash(a, start + 4, descriptorEnd - start - 4, 0) >> 8) & 0xff;
        if ((a[descriptorEnd] & 0xff) != expectedHc) {
            throw new IOException("lz4 frame header checksum " + (a[descriptorEnd] & 0xff) + ", expected " + expectedHc);
        }
        int maxBlock = maxBlockBytes(blockCode);
        boolean blockChecksum = (flg & FLG_BLOCK_CHECKSUM) != 0;
        int contentStart = out.size();
        byte[] scratch = null;
        int pos = descriptorEnd + 1;
        while (true) {
            if (end - pos < 4) {
                throw new IOException("lz4 frame ends before its end mark at byte " + (pos - start));
            }
            int word = intLE(a, pos);
            pos += 4;
            if (word == 0) {
                break;
            }
            boolean stored = (word & UNCOMPRESSED_BLOCK) != 0;
            int length = word & ~UNCOMPRESSED_BLOCK;
            int trailer = blockChecksum ? 4 : 0;
            if (length > maxBlock || length > end - pos - trailer) {
                throw new IOException("lz4 block at byte " + (pos - 4 - start) + " declares " + length
                        + " bytes (block size " + maxBlock + ", " + (end - pos) + " bytes remain)");
            }
            if (blockChecksum && hash.hash(a, pos, length, 0) != intLE(a, pos + length)) {
                throw new IOException("lz4 block at byte " + (pos - 4 - start) + " fails its checksum");
            }
            int at;
            int n;
            if (stored) {
                at = out.reserve(length);
                System.arraycopy(a, pos, out.array(), at, length);
                n = length;
            } else {
                if (scratch == null) {
                    scratch = new byte[maxBlock];
                }
                try {
                    n = decompressor.decompress(a, pos, length, scratch, 0, maxBlock);
                } catch (LZ4Exception e) {
                    throw new IOException("lz4 block at byte " + (pos - 4 - start) + " is malformed: " + e.getMessage(), e);
                }
                at = out.reserve(n);
                System.arraycopy(scratch, 0, out.array(), at, n);
            }
            out.advance(n);
            pos += length + trailer;
        }
        if ((flg & FLG_CONTENT_CHECKSUM) != 0) {
            if (end - pos < 4) {
                throw new IOException("lz4 frame ends before its content checksum");
            }
            int from = out.start() + contentStart;
            if (hash.hash(out.array(), from, out.size() - contentStart, 0) != intLE(a, pos)) {
                throw new IOException("lz4 frame content checksum mismatch");
            }
        }
    }

    /** 2^(2n+8) bytes for block size code n (4: 64 KiB, 5: 256 KiB, 6: 1 MiB, 7: 4 MiB). */
    private static int maxBlockBytes(int code) {
        return 1 << (2 * code + 8);
    }

    private static int intLE(byte[] a, int i) {
        return (a[i] & 0xff) | ((a[i + 1] & 0xff) << 8) | ((a[i + 2] & 0xff) << 16) | ((a[i + 3] & 0xff) << 24);
    }

    private static void putIntLE(byte[] a, int i, int v) {
        a[i] = (byte) v;
        a[i + 1] = (byte) (v >>> 8);
        a[i + 2] = (byte) (v >>> 16);
        a[i + 3] = (byte) (v >>> 24);
    }
}
