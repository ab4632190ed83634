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

package dev.insync.replication.netty.config;

import java.util.Map;

/** Reads typed values from a map of Kafka-named properties; a bad value names its property. */
final class Properties {

    private Properties() {
    }

    static long longValue(Map<String, ?> props, String name, long defaultValue) {
        Object v = props.get(name);
        if (v == null) {
            return defaultValue;
        }
        if (v instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Property " + name + " must be a number, got '" + v + "'", e);
        }
    }

    static int intValue(Map<String, ?> props, String name, int defaultValue) {
        long v = longValue(props, name, defaultValue);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Property " + name + " must fit in an int, got " + v);
        }
        return (int) v;
    }

    /** {@code true} or {@code false} (any case); anything else is refused rather than read as false. */
    static boolean booleanValue(Map<String, ?> props, String name, boolean defaultValue) {
        Object v = props.get(name);
        if (v == null) {
            return defaultValue;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        String text = v.toString().trim();
        if (text.equalsIgnoreCase("true")) {
            return true;
        }
        if (text.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("Property " + name + " must be true or false, got '" + v + "'");
    }

    static String string(Map<String, ?> props, String name, String defaultValue) {
        Object v = props.get(name);
        return v == null ? defaultValue : v.toString();
    }

    static long atLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException("Property " + name + " must be at least " + min + ", got " + value);
        }
        return value;
    }
}
