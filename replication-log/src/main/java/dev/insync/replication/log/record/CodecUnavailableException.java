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

/**
 * A codec whose library is not on the class path, or does not work in this JVM: a configuration
 * error that names the codec and the library to add. Reading such a batch turns it into
 * CORRUPT_MESSAGE naming the batch (the bytes are never misread); writing one throws it as is.
 */
final class CodecUnavailableException extends IllegalStateException {

    CodecUnavailableException(CompressionType type, String reason) {
        super(type.codecName() + " compression is not available: " + reason);
    }
}
