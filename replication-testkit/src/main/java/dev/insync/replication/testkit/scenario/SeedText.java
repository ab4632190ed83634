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

import dev.insync.replication.log.Errors;

import java.util.List;
import java.util.Locale;

/**
 * How the seed's experiments show what a broker holds, for the scenarios' traces and checks (the
 * in-memory scenarios and the ones on processes alike): checkpoint files, files on one line, and
 * errors as Kafka's client names them.
 */
public final class SeedText {

    private SeedText() {
    }

    /** {@code text} without its version and count lines: the entries of a checkpoint file, one per line. */
    public static List<String> checkpointEntries(String text) {
        List<String> all = text.lines().toList();
        return all.size() <= 2 ? List.of() : all.subList(2, all.size());
    }

    /** A checkpoint file's text on one line, as the seed shows it ({@code 0 2 0 0 1 10}). */
    public static String oneLine(String text) {
        return String.join(" ", text.strip().split("\\s+"));
    }

    /** {@code NOT_ENOUGH_REPLICAS} as Kafka's client names it: {@code NotEnoughReplicasException}. */
    public static String exceptionName(Errors error) {
        StringBuilder name = new StringBuilder();
        for (String word : error.name().split("_")) {
            name.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
        }
        return name.append("Exception").toString();
    }
}
