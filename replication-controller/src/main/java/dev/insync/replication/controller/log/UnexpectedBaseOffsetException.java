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

package dev.insync.replication.controller.log;

/**
 * An append whose required base offset is not the log's next offset: the appender built its
 * records on a state that is not the log's (Kafka's {@code requiredBaseOffset}). Nothing was
 * appended.
 */
public final class UnexpectedBaseOffsetException extends RuntimeException {

    /** @param message names both offsets */
    public UnexpectedBaseOffsetException(String message) {
        super(message);
    }
}
