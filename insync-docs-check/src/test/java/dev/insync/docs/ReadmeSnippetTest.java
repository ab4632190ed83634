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

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A code block a doc marks with {@code <!-- snippet: path/To/Source.java ... -->} is that source file,
 * from the line after its {@code package} declaration on (a license header and the package line are
 * the only things a reader does not see): the build compiles and runs the file, so the doc's example
 * compiles as shown, imports included.
 */
class ReadmeSnippetTest {

    private static final Pattern SNIPPET =
            Pattern.compile("<!-- snippet: (\\S+)[^\\n]*-->\\n```[a-z]*\\n(.*?)```", Pattern.DOTALL);

    @Test
    @DisplayName("the README's example is ReadmeExampleTest, imports included")
    void readmeShowsReadmeExampleTest() {
        List<Snippet> snippets = snippets(Repo.root().resolve("README.md"));
        assertThat(snippets).extracting(Snippet::source)
                .anyMatch(s -> s.endsWith("/ReadmeExampleTest.java"));
        assertThat(Repo.read(Repo.root().resolve("README.md")))
                .as("the README's java blocks are all snippets of compiled sources")
                .doesNotContainPattern("(?<!-->)\\n```java\\n");
    }

    @Test
    @DisplayName("every marked snippet in the docs equals its source file, after the package line")
    void snippetsEqualTheirSources() {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path doc : Repo.markdownDocs()) {
            for (Snippet s : snippets(doc)) {
                checked++;
                Path source = Repo.root().resolve(s.source());
                if (!Files.isRegularFile(source)) {
                    problems.add(Repo.relative(doc) + ": snippet of a missing file " + s.source());
                    continue;
                }
                String expected = afterPackageLine(Repo.read(source));
                if (!expected.equals(s.text())) {
                    problems.add(Repo.relative(doc) + ": the snippet of " + s.source()
                            + " differs from the file; the file, after its package line, is:\n" + expected);
                }
            }
        }
        assertThat(checked).as("snippets found").isPositive();
        assertThat(problems).isEmpty();
    }

    record Snippet(String source, String text) {
    }

    static List<Snippet> snippets(Path doc) {
        List<Snippet> snippets = new ArrayList<>();
        Matcher m = SNIPPET.matcher(Repo.read(doc).replace("\r\n", "\n"));
        while (m.find()) {
            snippets.add(new Snippet(m.group(1), m.group(2)));
        }
        return snippets;
    }

    /** The source from the line after {@code package ...;}, leading blank lines dropped. */
    static String afterPackageLine(String source) {
        String text = source.replace("\r\n", "\n");
        Matcher pkg = Pattern.compile("(?m)^package [\\w.]+;\\n").matcher(text);
        String rest = pkg.find() ? text.substring(pkg.end()) : text;
        return rest.replaceFirst("^\\n+", "");
    }
}
