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

import dev.insync.replication.testkit.scenario.ScenarioAbortedException;
import dev.insync.replication.testkit.scenario.ScenarioResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What one run of a seed scenario records, whichever harness runs it (simulated, or on processes):
 * the printed trace, the named data, the failed expectations, and the verdict that ends the trace.
 */
public final class ScenarioRecord {

    private final String scenario;
    private final Consumer<String> printer;
    private final List<String> lines = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private final Map<String, Object> data = new LinkedHashMap<>();

    /** @param printer where each trace line goes as it is recorded */
    public ScenarioRecord(String scenario, Consumer<String> printer) {
        this.scenario = Objects.requireNonNull(scenario, "scenario");
        this.printer = Objects.requireNonNull(printer, "printer");
    }

    public void line(String text) {
        lines.add(text);
        printer.accept(text);
    }

    public void section(String title) {
        line("=== " + title);
    }

    public void put(String key, Object value) {
        data.put(key, value);
    }

    /** Records a failure unless {@code expected} equals {@code actual}. */
    public void expect(String what, Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            failures.add(what + ": expected " + expected + " but was " + actual);
        }
    }

    /** Records {@code what} as a failure unless {@code ok}. */
    public void check(boolean ok, String what) {
        if (!ok) {
            fail(what);
        }
    }

    /** Records {@code what} as a failure. */
    public void fail(String what) {
        failures.add(what);
    }

    /**
     * Records that the run stopped early: a failure and a trace line, with the reason a
     * {@link ScenarioAbortedException} gives, or the exception itself.
     *
     * @return whether it was an unexpected exception (not a {@link ScenarioAbortedException}), which the caller logs
     */
    public boolean aborted(Exception aborted) {
        boolean unexpected = !(aborted instanceof ScenarioAbortedException);
        String why = unexpected ? aborted.toString() : aborted.getMessage();
        failures.add("aborted: " + why);
        line("!!! scenario aborted: " + why);
        return unexpected;
    }

    /**
     * Ends the trace with the verdict line for {@code label} (the scenario's name, and where it ran)
     * and, if anything failed, every failure and then {@code notesOnFailure}.
     */
    public ScenarioResult finish(String label, List<String> notesOnFailure) {
        if (failures.isEmpty()) {
            line("--- " + label + ": as in the seed");
        } else {
            line("--- " + label + ": " + failures.size() + " expectation(s) failed:");
            failures.forEach(f -> line("    " + f));
            notesOnFailure.forEach(n -> line("    " + n));
        }
        return new ScenarioResult(scenario, lines, data, failures);
    }
}
