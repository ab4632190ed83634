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

package dev.insync.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The repository these tests check: its root, its modules' source trees and its Markdown files. */
final class Repo {

    private Repo() {
    }

    /** The root, from {@code insync.repoRoot} (set by the pom), else the parent of the working directory. */
    static Path root() {
        String configured = System.getProperty("insync.repoRoot");
        Path root = (configured == null || configured.isBlank() ? Path.of("..") : Path.of(configured))
                .toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("pom.xml")) || !Files.isDirectory(root.resolve("docs"))) {
            throw new IllegalStateException("not the repository root (no pom.xml and docs/): " + root);
        }
        return root;
    }

    /** Every {@code *.java} file under {@code <module>/<tree>} for each module directory of the root, sorted. */
    static List<Path> javaFiles(String tree) {
        try (Stream<Path> modules = Files.list(root())) {
            return modules.filter(Files::isDirectory)
                    .map(module -> module.resolve(tree))
                    .filter(Files::isDirectory)
                    .flatMap(Repo::walkJava)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("listing modules of " + root(), e);
        }
    }

    private static Stream<Path> walkJava(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.toString().endsWith(".java")).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException("walking " + dir, e);
        }
    }

    /** README.md, CONTRIBUTING.md and every {@code docs/*.md} (not the generated bench reports below docs/). */
    static List<Path> markdownDocs() {
        Path root = root();
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            Stream<Path> top = Stream.of("README.md", "CONTRIBUTING.md").map(root::resolve).filter(Files::isRegularFile);
            return Stream.concat(top, docs.filter(f -> f.toString().endsWith(".md")).sorted()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("listing " + root.resolve("docs"), e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file, e);
        }
    }

    static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + file, e);
        }
    }

    /** {@code file} relative to the root, with forward slashes, for messages. */
    static String relative(Path file) {
        return root().relativize(file.toAbsolutePath().normalize()).toString().replace('\\', '/');
    }
}
