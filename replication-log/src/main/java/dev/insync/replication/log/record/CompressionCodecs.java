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

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * Finds the codec of a {@link CompressionType}. gzip is the JDK's. snappy, lz4 and zstd use the
 * libraries Kafka uses, optional dependencies of replication-log: each is looked up the first time
 * it is asked for, by loading a class of its library without initialising it, and then tried once on
 * a few bytes (its native code must load). Only then is the codec class, which links against the
 * library, touched. The outcome is kept per codec for the life of the class loader.
 */
final class CompressionCodecs {

    private static final byte[] PROBE = "insync codec probe: insync codec probe".getBytes(StandardCharsets.US_ASCII);

    private CompressionCodecs() {
    }

    /**
     * The codec for {@code type}.
     *
     * @throws CodecUnavailableException naming the codec and its library if it cannot be used here
     * @throws IllegalArgumentException  for {@link CompressionType#NONE}, which needs no codec
     */
    static CompressionCodec forType(CompressionType type) {
        return switch (type) {
            case NONE -> throw new IllegalArgumentException("Uncompressed batches need no codec");
            case GZIP -> GzipCodec.INSTANCE;
            case SNAPPY -> SnappyHolder.LOADED.codec(type);
            case LZ4 -> Lz4Holder.LOADED.codec(type);
            case ZSTD -> ZstdHolder.LOADED.codec(type);
        };
    }

    /** Whether {@link #forType} returns a codec for {@code type}. */
    static boolean isAvailable(CompressionType type) {
        return switch (type) {
            case NONE, GZIP -> true;
            case SNAPPY -> SnappyHolder.LOADED.isAvailable();
            case LZ4 -> Lz4Holder.LOADED.isAvailable();
            case ZSTD -> ZstdHolder.LOADED.isAvailable();
        };
    }

    /** A codec that loaded, or why it did not. */
    private record Loaded(CompressionCodec codec, CompressionType type, String problem) {
        boolean isAvailable() {
            return codec != null;
        }

        CompressionCodec codec(CompressionType requested) {
            if (codec == null) {
                throw new CodecUnavailableException(requested, problem);
            }
            return codec;
        }
    }

    // One holder per codec: its class initialiser runs on first use only, and only for that codec.
    private static final class SnappyHolder {
        static final Loaded LOADED = load(CompressionType.SNAPPY, "org.xerial.snappy.Snappy", () -> new SnappyCodec());
    }

    private static final class Lz4Holder {
        static final Loaded LOADED = load(CompressionType.LZ4, "net.jpountz.lz4.LZ4Factory", () -> new Lz4Codec());
    }

    private static final class ZstdHolder {
        static final Loaded LOADED = load(CompressionType.ZSTD, "com.github.luben.zstd.ZstdOutputStreamNoFinalizer",
                () -> new ZstdCodec());
    }

    /** The factory is a lambda, not a constructor reference: the codec class must not link before the check. */
    private static Loaded load(CompressionType type, String libraryClass, Supplier<CompressionCodec> factory) {
        try {
            Class.forName(libraryClass, false, CompressionCodecs.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return new Loaded(null, type, type.artifact() + " is not on the class path (no class " + libraryClass
                    + "); it is an optional dependency of replication-log: add it to read or write "
                    + type.codecName() + " batches");
        }
        try {
            CompressionCodec codec = factory.get();
            probe(codec);
            return new Loaded(codec, type, null);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) { // LinkageError or the library's own Error when its native code cannot load
            return new Loaded(null, type, type.artifact() + " is on the class path but does not work in this JVM: " + e);
        }
    }

    private static void probe(CompressionCodec codec) throws IOException {
        byte[] compressed = codec.compress(PROBE, 0, PROBE.length);
        DecompressionBuffer out = new DecompressionBuffer(0, PROBE.length, PROBE.length);
        codec.decompress(ByteBuffer.wrap(compressed), out);
        if (out.size() != PROBE.length || !Arrays.equals(out.array(), 0, out.size(), PROBE, 0, PROBE.length)) {
            throw new IOException(codec.type() + " round trip of " + PROBE.length + " bytes gave different bytes");
        }
    }

    /** An input stream over the bytes between the buffer's position and limit (no copy for a heap buffer). */
    static InputStream inputStream(ByteBuffer src) {
        Slice s = Slice.of(src);
        return new ByteArrayInputStream(s.array(), s.offset(), s.length());
    }

    /** Bytes of an array, from {@code offset}, {@code length} long. */
    record Slice(byte[] array, int offset, int length) {
        /** The bytes between the buffer's position and limit: its own array if it has one, else a copy. */
        static Slice of(ByteBuffer src) {
            if (src.hasArray()) {
                return new Slice(src.array(), src.arrayOffset() + src.position(), src.remaining());
            }
            byte[] copy = new byte[src.remaining()];
            src.duplicate().get(copy);
            return new Slice(copy, 0, copy.length);
        }
    }
}
