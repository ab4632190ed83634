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

package dev.insync.replication.log.segment;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** How many mappings an index holds: each counts against the process's {@code vm.max_map_count}. */
class IndexMappingTest {

    @TempDir
    Path tmp;

    private static long mappingsOf(Path file) throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.endsWith(file.toString())).count();
    }

    @Test
    @DisplayName("LOG-2 trimming a mapped index cuts the file and drops the mapping instead of mapping it again;"
            + " a later lookup maps the trimmed file")
    void trimDropsTheMapping() throws IOException {
        Path file = tmp.resolve("00000000000000000100.index");
        OffsetIndex index = new OffsetIndex(file, 100, 8 * 1024);
        index.append(101, 0);
        index.append(105, 4096);
        assertThat(index.isMapped()).isTrue();
        long before = mappingsOf(file);

        index.trimToValidSize();

        assertThat(Files.size(file)).isEqualTo(2L * OffsetIndex.ENTRY_SIZE);
        assertThat(index.isMapped()).isFalse();
        assertThat(index.maxEntries()).isEqualTo(2);
        if (Files.exists(Path.of("/proc/self/maps"))) {
            assertThat(mappingsOf(file)).as("no new mapping for the trimmed size").isLessThanOrEqualTo(before);
        }
        assertThat(index.lookup(106)).isEqualTo(new OffsetIndex.Position(105, 4096));
        assertThat(index.isMapped()).isTrue();
        assertThat(index.entries()).isEqualTo(2);
    }

    @Test
    @DisplayName("LOG-2 an index trimmed and made active again takes entries up to its new size")
    void trimThenGrowAgain() throws IOException {
        Path file = tmp.resolve("00000000000000000000.index");
        OffsetIndex index = new OffsetIndex(file, 0, 8 * 1024);
        index.append(1, 0);
        index.trimToValidSize();
        index.resize(8 * 1024);
        index.append(7, 512);
        assertThat(index.entries()).isEqualTo(2);
        assertThat(index.lookup(9)).isEqualTo(new OffsetIndex.Position(7, 512));
        assertThat(Files.size(file)).isEqualTo(8L * 1024);
    }
}
