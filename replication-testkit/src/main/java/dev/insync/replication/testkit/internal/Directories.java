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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The one walk-and-delete of the testkit and of the tools built on it (the in-memory cluster, the simulator,
 * the chaos command, the benchmarks): clusters and runs create their data directories under a temporary
 * directory and remove them when they close.
 */
public final class Directories {

    private Directories() {
    }

    /**
     * Deletes {@code dir} and everything under it, deepest first; nothing happens when it does not exist.
     *
     * @throws UncheckedIOException naming the directory, if a file cannot be deleted (what was deleted stays
     *                              deleted)
     */
    public static void deleteRecursively(Path dir) {
        deleteUnder(dir, true);
    }

    /**
     * Deletes everything under {@code dir} and keeps {@code dir} itself, as a freshly swapped, empty disk.
     *
     * @throws UncheckedIOException naming the directory, if a file cannot be deleted
     */
    public static void empty(Path dir) {
        deleteUnder(dir, false);
    }

    private static void deleteUnder(Path dir, boolean includingDir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            List<Path> deepestFirst = paths.sorted(Comparator.reverseOrder()).toList();
            for (Path p : deepestFirst) {
                if (includingDir || !p.equals(dir)) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete what is under " + dir, e);
        }
    }
}
