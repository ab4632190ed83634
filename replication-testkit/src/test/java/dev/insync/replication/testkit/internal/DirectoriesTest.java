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

package dev.insync.replication.testkit.internal;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

class DirectoriesTest {

    @TempDir
    Path root;

    private Path tree() throws IOException {
        Path dir = root.resolve("data");
        Files.createDirectories(dir.resolve("broker-1/topic-0"));
        Files.writeString(dir.resolve("broker-1/topic-0/00000000000000000000.log"), "records");
        Files.writeString(dir.resolve("meta.properties"), "node.id=1");
        return dir;
    }

    @Test
    @DisplayName("deleteRecursively removes the directory and every file and directory under it")
    void deletesTheWholeTree() throws IOException {
        Path dir = tree();
        Directories.deleteRecursively(dir);
        assertThat(dir).doesNotExist();
        assertThat(root).exists();
    }

    @Test
    @DisplayName("empty removes everything under the directory and keeps the directory, as a swapped disk")
    void emptyKeepsTheDirectory() throws IOException {
        Path dir = tree();
        Directories.empty(dir);
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    @DisplayName("a directory that does not exist is left alone")
    void missingDirectoryIsANoOp() {
        assertThatCode(() -> Directories.deleteRecursively(root.resolve("never-created"))).doesNotThrowAnyException();
        assertThatCode(() -> Directories.empty(root.resolve("never-created"))).doesNotThrowAnyException();
    }
}
