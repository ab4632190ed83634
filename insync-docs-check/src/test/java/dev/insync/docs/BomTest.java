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
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * insync-bom lists every published module (every module of the root pom that does not set
 * {@code maven.deploy.skip}, the BOM and pom-only modules aside) at the parent's version. The BOM has
 * no parent, so nothing else keeps the two in step.
 */
class BomTest {

    @Test
    @DisplayName("insync-bom manages exactly the published modules, at the parent's version")
    void bomListsEveryPublishedModule() throws Exception {
        Path root = Repo.root();
        Element parent = parse(root.resolve("pom.xml"));
        Element bom = parse(root.resolve("insync-bom/pom.xml"));
        assertThat(text(bom, "version")).as("insync-bom's version").isEqualTo(text(parent, "version"));
        assertThat(text(bom, "groupId")).isEqualTo(text(parent, "groupId"));

        Set<String> published = new TreeSet<>();
        for (String module : childTexts(child(parent, "modules"), "module")) {
            Element pom = parse(root.resolve(module).resolve("pom.xml"));
            String packaging = text(pom, "packaging");
            Element props = child(pom, "properties");
            boolean deploySkipped = props != null && "true".equals(text(props, "maven.deploy.skip"));
            if (!"pom".equals(packaging) && !deploySkipped) {
                published.add(text(pom, "artifactId"));
            }
        }

        Set<String> managed = new TreeSet<>();
        Element deps = child(child(bom, "dependencyManagement"), "dependencies");
        for (Element dep : children(deps, "dependency")) {
            assertThat(text(dep, "groupId")).isEqualTo("dev.insync");
            assertThat(text(dep, "version")).isEqualTo("${project.version}");
            managed.add(text(dep, "artifactId"));
        }
        assertThat(published).as("published modules").contains("replication-log", "replication-core");
        assertThat(managed).as("insync-bom's managed artifacts (add a new published module there)")
                .isEqualTo(published);
    }

    private static Element parse(Path pom) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = f.newDocumentBuilder().parse(pom.toFile());
        return doc.getDocumentElement();
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        if (parent == null) {
            return out;
        }
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().trim();
    }

    private static List<String> childTexts(Element parent, String name) {
        return children(parent, name).stream().map(e -> e.getTextContent().trim()).toList();
    }
}
