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

package dev.insync.replication.controller.control;

import dev.insync.replication.controller.record.MetadataRecord;

import java.util.List;

/**
 * What an operation decided (CTL-1): the records to append, as one atomic batch, and the answer to
 * give once they are committed. No records means nothing changes.
 *
 * @param records  the records, possibly none
 * @param response the answer
 * @param <T>      the answer's type
 */
public record ControllerResult<T>(List<MetadataRecord> records, T response) {

    /** Immutable copy. */
    public ControllerResult {
        records = List.copyOf(records);
    }
}
