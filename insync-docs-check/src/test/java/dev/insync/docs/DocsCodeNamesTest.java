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

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every class a doc names in backticks exists: {@code `Partition#makeLeader`} must be a class
 * {@code Partition} of the repository's sources (main or test) with a member {@code makeLeader}, and
 * {@code `core.replica.ReplicaState`} must sit in {@code dev.insync.replication.core.replica}. Names of
 * the JDK resolve by reflection; Kafka's own classes, which the docs cite for comparison, are accepted
 * only where the text calls them Kafka's ("Kafka" earlier in the same paragraph, list item or table
 * row, or a table column headed Kafka); a few other libraries' classes are listed in {@link CodeNames#LIBRARIES}. Fenced code blocks
 * are not read (the README's is compiled by {@code ReadmeExampleTest}).
 */
class DocsCodeNamesTest {

    private static final Pattern SPAN = Pattern.compile("`([^`\n]+)`");

    private static CodeNames names;

    @BeforeAll
    static void readSources() {
        List<Path> files = Stream.of("src/main/java", "src/test/java", "src/peers/java")
                .flatMap(tree -> Repo.javaFiles(tree).stream())
                .toList();
        names = new CodeNames(JavaSources.parse(files).types());
    }

    @Test
    @DisplayName("every backticked class name in README.md, CONTRIBUTING.md and docs/*.md exists, with the member it names")
    void everyNamedClassExists() {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path doc : Repo.markdownDocs()) {
            List<String> lines = Repo.read(doc).lines().toList();
            boolean fenced = false;
            List<String> tableHeader = List.of();
            int blockStart = 0; // first line of the paragraph, list item or table row the line belongs to
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.strip().startsWith("```")) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) {
                    continue;
                }
                if (line.startsWith("|") && i + 1 < lines.size() && lines.get(i + 1).matches("\\|[-:| ]+\\|\\s*")) {
                    tableHeader = cells(line);
                } else if (!line.startsWith("|")) {
                    tableHeader = List.of();
                }
                if (line.isBlank() || line.startsWith("|") || line.matches("\\s*([-*]|\\d+\\.) .*") || line.startsWith("#")) {
                    blockStart = i;
                }
                String blockBefore = String.join("\n", lines.subList(blockStart, i));
                int lineNumber = i + 1;
                Matcher span = SPAN.matcher(line);
                while (span.find()) {
                    for (String name : CodeNames.namesIn(span.group(1))) {
                        checked++;
                        boolean markedKafka = mentionsKafka(blockBefore + "\n" + line.substring(0, span.start()))
                                || columnHeader(line, span.start(), tableHeader).contains("Kafka");
                        Optional<String> problem = names.problem(name, markedKafka);
                        problem.ifPresent(p -> problems.add(Repo.relative(doc) + ":" + lineNumber
                                + ": `" + name + "`: " + p));
                    }
                }
            }
        }
        assertThat(checked).as("code names found in the docs").isGreaterThan(200);
        assertThat(problems).as("code names in the docs that the sources do not have").isEmpty();
    }

    @Test
    @DisplayName("the name check knows ours from Kafka's: members, packages, and the Kafka marking")
    void resolution() {
        assertThat(names.problem("Partition#makeLeader", false)).isEmpty();
        assertThat(names.problem("core.partition.Partition", false)).isEmpty();
        assertThat(names.problem("core.fetcher.Partition", false)).isPresent();
        assertThat(names.problem("Partition#noSuchMethodAnywhere", false)).isPresent();
        assertThat(names.problem("UnifiedLog", false)).isPresent();
        assertThat(names.problem("UnifiedLog.analyzeAndValidateRecords", true)).isEmpty();
        assertThat(names.problem("NoSuchInsyncClass", true)).isPresent();
        assertThat(names.problem("FileChannel.write", false)).isEmpty();
        assertThat(names.problem("log.record.*", false)).isEmpty();
        assertThat(names.problem("log.nosuchpackage.*", false)).isPresent();
        assertThat(CodeNames.namesIn("core.replica.{Replica, ReplicaState}"))
                .containsExactly("core.replica.Replica", "core.replica.ReplicaState");
        assertThat(CodeNames.namesIn("NOT_LEADER_OR_FOLLOWER")).isEmpty();
        assertThat(CodeNames.namesIn("Elr: 3")).isEmpty();
    }

    /** "Kafka's", "Kafka 4.4", "kafka-clients'": the text says the name that follows is Kafka's. */
    private static boolean mentionsKafka(String text) {
        return text.toLowerCase(java.util.Locale.ROOT).contains("kafka");
    }

    private static List<String> cells(String row) {
        String inner = row.strip();
        inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
        return List.of(inner.split("\\|", -1));
    }

    /** The header of the table column holding {@code offset} of {@code row}, or "" outside a table. */
    private static String columnHeader(String row, int offset, List<String> header) {
        if (header.isEmpty() || !row.startsWith("|")) {
            return "";
        }
        int column = -1;
        for (int i = 0; i < offset; i++) {
            if (row.charAt(i) == '|') {
                column++;
            }
        }
        return column >= 0 && column < header.size() ? header.get(column) : "";
    }
}
