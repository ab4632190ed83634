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

package dev.insync.replication.log.record;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * One record read from a batch, with its absolute offset and timestamp. {@code key} and
 * {@code value} are read-only views into the batch's bytes (zero copy), or null.
 */
public record Record(long offset, long timestamp, ByteBuffer key, ByteBuffer value, List<Header> headers) {
}
