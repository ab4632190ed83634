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

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * zstd (codec 4): a zstd-jni streaming frame, as Kafka's producer writes it (level 3). Loaded only
 * through {@link CompressionCodecs} once com.github.luben:zstd-jni is known to be on the class path.
 */
final class ZstdCodec implements CompressionCodec {

    /** Kafka's default zstd level. */
    private static final int LEVEL = 3;
    /**
     * The largest frame window accepted, 2^27 = 128 MiB: zstd's own default limit, set explicitly
     * because it bounds the decoder's native memory whatever a frame header claims. (Bounding it by
     * the decompressed-size limit instead would refuse Kafka's frames, whose window does not depend
     * on their size.) The decompressed bytes are bounded by the {@link DecompressionBuffer}.
     */
    private static final int MAX_WINDOW_LOG = 27;

    @Override
    public CompressionType type() {
        return CompressionType.ZSTD;
    }

    @Override
    public byte[] compress(byte[] src, int offset, int length) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, length / 2));
        try (ZstdOutputStreamNoFinalizer zstd = new ZstdOutputStreamNoFinalizer(out, LEVEL)) {
            zstd.write(src, offset, length);
        }
        return out.toByteArray();
    }

    @Override
    public void decompress(ByteBuffer src, DecompressionBuffer out) throws IOException {
        try (ZstdInputStreamNoFinalizer in = new ZstdInputStreamNoFinalizer(CompressionCodecs.inputStream(src))) {
            in.setLongMax(MAX_WINDOW_LOG);
            out.readFully(in);
        }
    }
}
