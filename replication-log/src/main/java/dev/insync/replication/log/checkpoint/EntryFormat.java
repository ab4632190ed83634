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

package dev.insync.replication.log.checkpoint;

/**
 * How one entry of a checkpoint file is written to and read from its line (LOG-9).
 *
 * @param <T> the entry type
 */
public interface EntryFormat<T> {

    /**
     * The entry as one line, without the line terminator. Must not contain a line break.
     *
     * @throws IllegalArgumentException if the entry cannot be written (nothing is written then)
     */
    String format(T entry);

    /**
     * Parses one line written by {@link #format}.
     *
     * @throws RuntimeException (typically {@link IllegalArgumentException}) if the line is malformed;
     *                          {@link CheckpointFile} turns it into a {@link CorruptCheckpointException}
     *                          naming the file and line
     */
    T parse(String line);

    /**
     * Splits a line into exactly {@code count} fields separated by single spaces, none of them empty.
     *
     * @throws IllegalArgumentException if the line has another shape
     */
    static String[] fields(String line, int count) {
        String[] fields = line.split(" ", -1);
        if (fields.length != count) {
            throw new IllegalArgumentException("expected " + count + " space-separated fields but found "
                    + fields.length + " in '" + line + "'");
        }
        for (String field : fields) {
            if (field.isEmpty()) {
                throw new IllegalArgumentException("empty field in '" + line + "'");
            }
        }
        return fields;
    }

    /**
     * Parses a non-negative decimal {@code long} field.
     *
     * @throws IllegalArgumentException if it is not one
     */
    static long nonNegativeLong(String field, String what) {
        long value;
        try {
            value = Long.parseLong(field);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + field + "' is not a number", e);
        }
        if (value < 0) {
            throw new IllegalArgumentException(what + " " + value + " is negative");
        }
        return value;
    }

    /**
     * Parses a non-negative decimal {@code int} field.
     *
     * @throws IllegalArgumentException if it is not one
     */
    static int nonNegativeInt(String field, String what) {
        long value = nonNegativeLong(field, what);
        if (value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(what + " " + value + " does not fit an int");
        }
        return (int) value;
    }
}
