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

package dev.insync.replication.testkit.history;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * How record values appear in a history: short values as they are, long ones (the simulation's
 * padded values of up to a few KB) as {@code <first field>~<UTF-8 length>~<CRC-32C hex>}, so that a
 * history with thousands of large records stays small while a changed byte still changes what the
 * checker compares. Every value of one history (produced, consumed, in a final log) goes through
 * the same {@link #digest}.
 */
public final class HistoryValues {

    /** Values up to this many characters are written as they are. */
    public static final int MAX_LITERAL_CHARS = 64;

    private HistoryValues() {
    }

    /** {@code value} itself if short (or null), else its digest. */
    public static String digest(String value) {
        if (value == null || value.length() <= MAX_LITERAL_CHARS) {
            return value;
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        int colon = value.indexOf(':');
        String head = colon > 0 && colon <= MAX_LITERAL_CHARS ? value.substring(0, colon) : value.substring(0, 16);
        return head + "~" + bytes.length + "~" + String.format("%08x", crc.getValue());
    }
}
