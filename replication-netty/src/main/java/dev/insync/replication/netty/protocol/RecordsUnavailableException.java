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

package dev.insync.replication.netty.protocol;

/**
 * NET-3: a response's file slice could not be opened for sending: its segment was deleted, or
 * truncated, after the read. Nothing of the frame was written; the request is answered as failed
 * and the peer fetches again.
 */
public final class RecordsUnavailableException extends RuntimeException {

    public RecordsUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
