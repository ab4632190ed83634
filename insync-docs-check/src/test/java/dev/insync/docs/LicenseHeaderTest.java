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

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The check {@code scripts/license-headers.sh --check} makes, run by {@code mvn verify}. */
class LicenseHeaderTest {

    @Test
    @DisplayName("every Java source carries the Apache-2.0 header in its first 20 lines (scripts/license-headers.sh adds it)")
    void everySourceHasTheHeader() {
        List<Path> sources = Stream.of("src/main/java", "src/test/java", "src/peers/java")
                .flatMap(tree -> Repo.javaFiles(tree).stream()).toList();
        List<String> missing = new ArrayList<>();
        for (Path source : sources) {
            String head = String.join("\n", Repo.read(source).lines().limit(20).toList());
            if (!head.contains("Licensed under the Apache License, Version 2.0") && !head.contains("SPDX-License-Identifier: Apache-2.0")) {
                missing.add(Repo.relative(source));
            }
        }
        assertThat(sources).hasSizeGreaterThan(100);
        assertThat(missing).as("sources without the header: run scripts/license-headers.sh").isEmpty();
    }
}
