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

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** gzip (codec 1): a {@code java.util.zip} GZIP stream, as Kafka's producer writes it (default level, 8 KiB buffer). */
final class GzipCodec implements CompressionCodec {

    static final GzipCodec INSTANCE = new GzipCodec();

    private static final int BUFFER_BYTES = 8 * 1024;

    private GzipCodec() {
    }

    @Override
    public CompressionType type() {
        return CompressionType.GZIP;
    }

    @Override
    public byte[] compress(byte[] src, int offset, int length) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, length / 2));
        try (GZIPOutputStream gzip = new GZIPOutputStream(out, BUFFER_BYTES)) {
            gzip.write(src, offset, length);
        }
        return out.toByteArray();
    }

    @Override
    public void decompress(ByteBuffer src, DecompressionBuffer out) throws IOException {
        // The inflater's window is 32 KiB whatever the input claims: only the output needs a bound.
        try (InputStream in = new GZIPInputStream(CompressionCodecs.inputStream(src), BUFFER_BYTES)) {
            out.readFully(in);
        }
    }
}
