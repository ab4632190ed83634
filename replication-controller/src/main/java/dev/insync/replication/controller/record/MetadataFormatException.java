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

package dev.insync.replication.controller.record;

/**
 * Bytes that are not a valid metadata record, batch or snapshot: a bad CRC, a truncated or
 * oversized frame, an unknown record type or version (CTL-2), or a field that breaks a record's
 * rules. The message names the offset (or the snapshot entry) concerned. Nothing is ever skipped.
 */
public final class MetadataFormatException extends RuntimeException {

    /** @param message names the offset and what is wrong */
    public MetadataFormatException(String message) {
        super(message);
    }

    /** @param message names the offset and what is wrong */
    public MetadataFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
