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

import dev.insync.replication.testkit.history.Json;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a scenario run produced.
 *
 * @param scenario  the scenario's name ({@code isr-hw}, {@code min-isr}, {@code truncation})
 * @param lines     the printed trace, line by line
 * @param data      the numbers, JSON-able (maps, lists, strings, numbers), keys as documented on each scenario
 * @param failures  the expectations that did not hold, each a sentence naming what was expected and seen;
 *                  empty when the run reproduced the seed
 */
public record ScenarioResult(String scenario, List<String> lines, Map<String, Object> data, List<String> failures) {

    /** Immutable copies. */
    public ScenarioResult {
        lines = List.copyOf(lines);
        data = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(data));
        failures = List.copyOf(failures);
    }

    /** Whether every expectation held. */
    public boolean passed() {
        return failures.isEmpty();
    }

    /** The trace as one text, lines ending with {@code \n}. */
    public String text() {
        StringBuilder out = new StringBuilder();
        lines.forEach(line -> out.append(line).append('\n'));
        return out.toString();
    }

    /** {@code scenario}, {@code passed}, {@code failures}, then every key of {@link #data}. */
    public Map<String, Object> toJsonMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("scenario", scenario);
        map.put("passed", passed());
        map.put("failures", failures);
        map.putAll(data);
        return map;
    }

    /** {@link #toJsonMap()} as one line of JSON. */
    public String toJson() {
        return Json.write(toJsonMap());
    }
}
