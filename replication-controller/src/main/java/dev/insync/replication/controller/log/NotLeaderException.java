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

import java.util.OptionalInt;

/**
 * An append by a node that is not (or no longer) the leader of the metadata log in the given
 * epoch, or a batch dropped uncommitted when leadership moved. The records are not in the log.
 */
public final class NotLeaderException extends RuntimeException {

    private final transient OptionalInt leaderId;

    /** @param leaderId the current leader, if known */
    public NotLeaderException(String message, OptionalInt leaderId) {
        super(message);
        this.leaderId = leaderId;
    }

    /** The current leader, if known. */
    public OptionalInt leaderId() {
        return leaderId;
    }
}
