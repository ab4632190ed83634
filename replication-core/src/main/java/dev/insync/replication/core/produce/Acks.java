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

package dev.insync.replication.core.produce;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;

/**
 * PRO-1: how many acknowledgements a produce waits for (Kafka's {@code acks}), with Kafka's wire
 * values. A request arriving with any other value is refused with {@code INVALID_REQUIRED_ACKS}:
 * parse it with {@link #forCode(int)} at the edge where it comes off the wire.
 */
public enum Acks {

    /** {@code acks=0}: the producer waits for nothing; the broker answers nobody. */
    NONE(0),
    /** {@code acks=1}: done once the leader has appended the records (PRO-3). */
    LEADER(1),
    /** {@code acks=-1} ("all"): done once the high watermark passes the records (PRO-3). */
    ALL(-1);

    private final int code;

    Acks(int code) {
        this.code = code;
    }

    /** Kafka's wire value: 0, 1 or -1. */
    public int code() {
        return code;
    }

    /**
     * PRO-1: the acks of a wire value.
     *
     * @throws ApiException with {@link Errors#INVALID_REQUIRED_ACKS}, naming the value, for anything but 0, 1 and -1
     */
    public static Acks forCode(int code) {
        return switch (code) {
            case 0 -> NONE;
            case 1 -> LEADER;
            case -1 -> ALL;
            default -> throw Errors.INVALID_REQUIRED_ACKS.exception("Invalid required acks " + code
                    + " (must be 0, 1 or -1)");
        };
    }
}
