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

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A codec library missing at run time: the log's classes are loaded again by a class loader that
 * has them and nothing else of the class path (so no snappy-java), and a snappy batch made here is
 * read, validated and built there. Reading names the codec and the library with CORRUPT_MESSAGE,
 * never misreads; a follower's shallow check still accepts it; gzip still works.
 */
class CompressionCodecMissingTest {

    private static URL location(Class<?> c) throws Exception {
        return c.getProtectionDomain().getCodeSource().getLocation();
    }

    @Test
    @DisplayName("LOG-5 LOG-1 a missing codec library is CORRUPT_MESSAGE naming the codec and library; followers still replicate the batch")
    @SuppressWarnings("unchecked")
    void log5MissingCodecLibrary() throws Exception {
        RecordBatchBuilder builder = new RecordBatchBuilder(12).compression(CompressionType.SNAPPY);
        builder.append(1, null, new byte[] {1, 2, 3}).append(2, null, new byte[] {4}).append(3, null, null);
        ByteBuffer snappy = builder.build().buffer();

        URL mainClasses = location(RecordBatch.class);
        URL testClasses = location(CodecMissingProbe.class);
        assertThat(Path.of(mainClasses.toURI())).isDirectory(); // target/classes, not a jar with dependencies
        try (URLClassLoader isolated = new URLClassLoader(new URL[] {mainClasses, testClasses},
                ClassLoader.getPlatformClassLoader())) {
            assertThat(isolated.loadClass(RecordBatch.class.getName())).isNotSameAs(RecordBatch.class);
            assertThat(exists(isolated, "org.xerial.snappy.Snappy")).isFalse();
            Function<ByteBuffer, List<String>> probe = (Function<ByteBuffer, List<String>>) isolated
                    .loadClass(CodecMissingProbe.class.getName()).getDeclaredConstructor().newInstance();

            List<String> seen = probe.apply(snappy);

            assertThat(seen.get(0)).isEqualTo("available false true");
            assertThat(seen.get(1)).isEqualTo("type snappy valid true");
            assertThat(seen.get(2)).startsWith("records CORRUPT_MESSAGE: Record batch at offset 12")
                    .contains("snappy compression is not available")
                    .contains("org.xerial.snappy:snappy-java is not on the class path");
            assertThat(seen.get(3)).startsWith("validate CORRUPT_MESSAGE").contains("offset 12")
                    .contains("org.xerial.snappy:snappy-java").contains("nocodec-0");
            assertThat(seen.get(4)).isEqualTo("shallow 3");
            assertThat(seen.get(5)).startsWith("builder snappy compression is not available")
                    .contains("org.xerial.snappy:snappy-java");
            assertThat(seen.get(6)).isEqualTo("gzip 1");
        }
        // Here, with the library, the same bytes read.
        assertThat(RecordBatch.wrap(snappy).records()).hasSize(3);
    }

    private static boolean exists(ClassLoader loader, String name) {
        try {
            Class.forName(name, false, loader);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
