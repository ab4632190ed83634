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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/api.md draws the line between the API and the internals. These tests keep the line true:
 * every type it lists is a public top-level type of a main source tree, and the code the docs show
 * a user (fenced blocks of README.md and docs/*.md) imports nothing of Insync's that is not listed.
 */
class ApiListTest {

    private static final Path API = Path.of("docs", "api.md");
    private static final Pattern QUALIFIED = Pattern.compile("`((?:[a-z]+\\.)+)([A-Z][A-Za-z0-9]*)`");
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?dev\\.insync\\.replication\\.((?:[a-z]+\\.)+)([A-Z][A-Za-z0-9]*)");

    /** The listed types, as {@code core.server.ReplicaManager}: the table rows of docs/api.md. */
    private static Set<String> listed() {
        Set<String> out = new LinkedHashSet<>();
        for (String line : Repo.read(Repo.root().resolve(API)).lines().toList()) {
            if (!line.startsWith("|")) {
                continue;
            }
            Matcher m = QUALIFIED.matcher(line);
            while (m.find()) {
                out.add(m.group(1) + m.group(2));
            }
        }
        return out;
    }

    @Test
    @DisplayName("every type docs/api.md lists as API is a public top-level type of a main source tree")
    void everyListedTypeIsPublic() {
        Set<String> listed = listed();
        assertThat(listed).as("API types listed in docs/api.md").hasSizeGreaterThan(20);
        List<String> problems = new ArrayList<>();
        for (String type : listed) {
            String relative = "dev/insync/replication/" + type.replace('.', '/') + ".java";
            Path source = Repo.javaFiles("src/main/java").stream().filter(p -> p.endsWith(relative)).findFirst().orElse(null);
            if (source == null) {
                problems.add(type + ": no main source " + relative);
                continue;
            }
            String simple = type.substring(type.lastIndexOf('.') + 1);
            Pattern declaration = Pattern.compile("(?m)^public (?:final |abstract |sealed |non-sealed )*(?:class|interface|record|enum) " + simple + "\\b");
            if (!declaration.matcher(Repo.read(source)).find()) {
                problems.add(type + ": not a public top-level type in " + Repo.relative(source));
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    @DisplayName("the code README.md and docs/*.md show a user imports only the API types docs/api.md lists")
    void docsCodeUsesOnlyTheApi() throws Exception {
        Set<String> listed = listed();
        List<String> problems = new ArrayList<>();
        int imports = 0;
        for (Path doc : Repo.markdownDocs()) {
            boolean fenced = false;
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.strip().startsWith("```")) {
                    fenced = !fenced;
                    continue;
                }
                Matcher m = IMPORT.matcher(line.strip());
                if (fenced && m.find()) {
                    imports++;
                    String type = m.group(1) + m.group(2);
                    if (!listed.contains(type)) {
                        problems.add(Repo.relative(doc) + ":" + (i + 1) + ": imports " + type + ", which docs/api.md does not list");
                    }
                }
            }
        }
        assertThat(imports).as("imports of Insync types in the docs' code").isPositive();
        assertThat(problems).isEmpty();
    }

    @Test
    @DisplayName("every module that ships a jar names its JPMS module (Automatic-Module-Name) after its package, as docs/api.md says")
    void everyJarNamesItsModule() {
        String root = Repo.read(Repo.root().resolve("pom.xml"));
        Matcher module = Pattern.compile("<module>(replication-[a-z-]+)</module>").matcher(root);
        List<String> problems = new ArrayList<>();
        int modules = 0;
        while (module.find()) {
            modules++;
            String name = module.group(1);
            String expected = "dev.insync." + name.replace("replication-", "replication.").replace('-', '.');
            String pom = Repo.read(Repo.root().resolve(name).resolve("pom.xml"));
            if (!pom.contains("<automatic.module.name>" + expected + "</automatic.module.name>")) {
                problems.add(name + "/pom.xml: set <automatic.module.name>" + expected + "</automatic.module.name>");
            }
        }
        assertThat(modules).isPositive();
        assertThat(problems).isEmpty();
    }
}
