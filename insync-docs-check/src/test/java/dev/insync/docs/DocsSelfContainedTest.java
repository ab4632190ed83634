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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The docs stand alone: they point only at what a reader of the repository can open. No issue
 * numbers, no project-internal files outside the repository, section references only into
 * docs/contract.md, and every relative link (with its #anchor) leads to a file and heading that exist.
 */
class DocsSelfContainedTest {

    /** What a reader cannot open, and what to write instead. */
    private static final Map<Pattern, String> UNREADABLE = Map.of(
            Pattern.compile("(?i)\\bissues?\\s+#?\\d+"), "an issue number (say what it is about instead)",
            Pattern.compile("\\.\\./shared|\\bSPEC\\.md|\\bARCHITECTURE\\.md|\\bSTYLE\\.md|HELPER-RULES"),
            "a file outside the repository (link docs/contract.md or another doc)",
            Pattern.compile("\\bSPEC\\b"), "\"SPEC\" (the contract is docs/contract.md: say \"contract\" and link it)",
            Pattern.compile("(?<!contract )§\\d"), "a bare section sign (write \"contract §9\", linked to contract.md)",
            Pattern.compile("(?i)seed article|seed section|the seed's (experiments|words|lines)"),
            "the article the project started from, which the repository does not contain");

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");

    private static List<Path> docs() {
        Path changelog = Repo.root().resolve("CHANGELOG.md");
        return Stream.concat(Repo.markdownDocs().stream(), Stream.of(changelog).filter(Files::isRegularFile)).toList();
    }

    @Test
    @DisplayName("README, CONTRIBUTING, CHANGELOG and docs/*.md cite no issue numbers, SPEC sections or files outside the repository")
    void noReferencesAReaderCannotOpen() {
        List<String> problems = new ArrayList<>();
        for (Path doc : docs()) {
            boolean isContract = doc.endsWith(Path.of("docs", "contract.md"));
            List<String> lines = Repo.read(doc).lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                for (Map.Entry<Pattern, String> rule : UNREADABLE.entrySet()) {
                    // The contract explains how to read the code's "§9" and "SPEC §10".
                    if (isContract && !rule.getKey().pattern().contains("shared")) {
                        continue;
                    }
                    if (rule.getKey().matcher(lines.get(i)).find()) {
                        problems.add(Repo.relative(doc) + ":" + (i + 1) + ": " + rule.getValue() + ": " + lines.get(i).strip());
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    @DisplayName("every relative link in the docs leads to a file that exists, and its #anchor to a heading or id there")
    void relativeLinksResolve() {
        List<String> problems = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        int checked = 0;
        for (Path doc : docs()) {
            Matcher m = LINK.matcher(Repo.read(doc));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
                    continue; // https:, mailto:
                }
                checked++;
                int hash = target.indexOf('#');
                String pathPart = hash < 0 ? target : target.substring(0, hash);
                Path file = pathPart.isEmpty() ? doc : doc.getParent().resolve(pathPart).normalize();
                if (!Files.exists(file)) {
                    problems.add(Repo.relative(doc) + ": link to a missing file: " + target);
                    continue;
                }
                if (hash >= 0 && file.toString().endsWith(".md")) {
                    String anchor = target.substring(hash + 1);
                    if (!anchors.computeIfAbsent(file, DocsSelfContainedTest::anchorsOf).contains(anchor)) {
                        problems.add(Repo.relative(doc) + ": link to a missing anchor: " + target);
                    }
                }
            }
        }
        assertThat(checked).as("relative links found").isGreaterThan(10);
        assertThat(problems).isEmpty();
    }

    @Test
    @DisplayName("heading anchors are made as GitHub makes them")
    void headingAnchors() {
        assertThat(slug("Rule → tests")).isEqualTo("rule--tests");
        assertThat(slug("10. Acceptance scenarios")).isEqualTo("10-acceptance-scenarios");
        assertThat(slug("Recovery (LOG-7) and flush (LOG-11)")).isEqualTo("recovery-log-7-and-flush-log-11");
        assertThat(slug("Simulation (`sim`)")).isEqualTo("simulation-sim");
    }

    /** Heading slugs (with GitHub's -1, -2 for repeats) and explicit {@code <a id>}s of a Markdown file. */
    private static Set<String> anchorsOf(Path file) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : Repo.read(file).lines().toList()) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
            }
            if (!fenced && line.matches("#{1,6} .*")) {
                String slug = slug(line.replaceFirst("#{1,6} ", ""));
                int n = seen.merge(slug, 1, Integer::sum);
                anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
            Matcher id = Pattern.compile("<a (?:id|name)=\"([^\"]+)\"").matcher(line);
            while (id.find()) {
                anchors.add(id.group(1));
            }
        }
        return anchors;
    }

    /** GitHub's heading anchor: lower case, punctuation dropped (not - and _), spaces to hyphens. */
    static String slug(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
    }
}
