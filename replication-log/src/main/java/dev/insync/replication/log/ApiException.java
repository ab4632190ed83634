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

package dev.insync.replication.log;

import java.util.Objects;

/**
 * The one exception type the library throws for a request it refuses: it carries the wire
 * {@link Errors} value and a message naming the partition, offset or file concerned.
 */
public class ApiException extends RuntimeException {

    private final Errors error;

    /** @param error the wire error, never {@link Errors#NONE} */
    public ApiException(Errors error, String message) {
        this(error, message, null);
    }

    /** @param error the wire error, never {@link Errors#NONE} */
    public ApiException(Errors error, String message, Throwable cause) {
        super(message, cause);
        this.error = Objects.requireNonNull(error, "error");
        if (error == Errors.NONE) {
            throw new IllegalArgumentException("An ApiException cannot carry Errors.NONE");
        }
    }

    /** The wire error this exception stands for. */
    public Errors error() {
        return error;
    }

    @Override
    public String toString() {
        return error + ": " + getMessage();
    }
}
