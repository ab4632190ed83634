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

package dev.insync.replication.testkit.scenario;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden traces: each scenario's printed trace at the default settings (seed 42) compared with
 * {@code src/test/resources/testdata/scenario/<name>.txt}. Run with {@code -Dgolden.rewrite=true} to
 * regenerate them, then read the diff.
 */
class SeedScenariosGoldenTest {

    private static final Path TESTDATA = Path.of("src", "test", "resources", "testdata", "scenario");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"isr-hw", "min-isr", "truncation"})
    @DisplayName("SCN-1, SCN-2, SCN-3 golden trace at the default settings")
    void golden(String name) throws IOException {
        Scenario scenario = Scenario.named(name).orElseThrow();
        ScenarioResult result = scenario.run(ScenarioSettings.defaults());
        assertThat(result.failures()).as(result.text()).isEmpty();
        Path file = TESTDATA.resolve(name + ".txt");
        if (Boolean.getBoolean("golden.rewrite")) {
            Files.createDirectories(TESTDATA);
            Files.writeString(file, result.text(), StandardCharsets.UTF_8);
        }
        assertThat(file).as("golden file (regenerate with -Dgolden.rewrite=true)").exists();
        assertThat(result.text()).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
    }
}
