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

package dev.insync.replication.cli.dump;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a dump found wrong, for stderr and the exit code. Problems that concern one place (a corrupt
 * batch, an invalid tail, an unreadable file) are printed at once; the cross-checks Kafka's tool
 * collects over all files (index entries that do not match the log, time index errors,
 * non-consecutive offsets) are printed at the end in Kafka's wording by {@link #printSummary()}.
 * Any finding makes the command exit with 1.
 */
final class Findings {

    private final PrintWriter err;
    private int count;
    private final Map<String, List<String>> indexMismatches = new LinkedHashMap<>();
    private final Map<String, List<String>> timestampMismatches = new LinkedHashMap<>();
    private final Map<String, List<String>> outOfOrderTimestamps = new LinkedHashMap<>();
    private final Map<String, List<String>> indexedOffsetsNotFound = new LinkedHashMap<>();
    private final Map<String, List<String>> nonConsecutiveOffsets = new LinkedHashMap<>();

    Findings(PrintWriter err) {
        this.err = err;
    }

    /** Prints a problem now; the message names the file and position or offset. */
    void problem(String message) {
        count++;
        err.println(message);
    }

    void indexMismatch(String file, long indexOffset, long logOffset) {
        add(indexMismatches, file, "  Index offset: " + indexOffset + ", log offset: " + logOffset);
    }

    void timestampMismatch(String file, long indexTimestamp, long logTimestamp) {
        add(timestampMismatches, file, "  Index timestamp: " + indexTimestamp + ", log timestamp: " + logTimestamp);
    }

    void outOfOrderTimestamp(String file, long indexTimestamp, long previousTimestamp) {
        add(outOfOrderTimestamps, file, "  Index timestamp: " + indexTimestamp
                + ", Previously indexed timestamp: " + previousTimestamp);
    }

    void indexedOffsetNotFound(String file, long indexOffset, long logOffset) {
        add(indexedOffsetsNotFound, file, "Indexed offset: " + indexOffset + ", found log offset: " + logOffset);
    }

    void nonConsecutive(String file, long previous, long next) {
        add(nonConsecutiveOffsets, file, "  " + previous + " is followed by " + next);
    }

    private void add(Map<String, List<String>> group, String file, String line) {
        count++;
        group.computeIfAbsent(file, f -> new ArrayList<>()).add(line);
    }

    /** Whether anything was found wrong. */
    boolean any() {
        return count > 0;
    }

    /** Prints the collected cross-check reports, grouped by file as Kafka's tool does. */
    void printSummary() {
        print(indexMismatches, "Mismatches in :");
        print(timestampMismatches, "Found timestamp mismatch in :");
        print(outOfOrderTimestamps, "Found out of order timestamp in :");
        indexedOffsetsNotFound.values().forEach(lines -> {
            err.println("The following indexed offsets are not found in the log.");
            lines.forEach(err::println);
        });
        print(nonConsecutiveOffsets, "Non-consecutive offsets in ");
        err.flush();
    }

    private void print(Map<String, List<String>> group, String title) {
        group.forEach((file, lines) -> {
            err.println(title + file);
            lines.forEach(err::println);
        });
    }
}
