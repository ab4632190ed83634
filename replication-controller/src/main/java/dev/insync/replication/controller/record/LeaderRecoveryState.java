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
 * ISR-8 / CTL-6, Kafka's {@code LeaderRecoveryState}: after an unclean election a partition is
 * {@link #RECOVERING} and the controller accepts no ISR larger than the leader alone, until the
 * leader reports it recovered in an AlterPartition.
 */
public enum LeaderRecoveryState {
    RECOVERED(0),
    RECOVERING(1);

    private final byte value;

    LeaderRecoveryState(int value) {
        this.value = (byte) value;
    }

    /** The byte on the wire. */
    public byte value() {
        return value;
    }

    /** The state for {@code recovering}. */
    public static LeaderRecoveryState of(boolean recovering) {
        return recovering ? RECOVERING : RECOVERED;
    }

    /** The state with wire value {@code value}. */
    public static LeaderRecoveryState fromValue(int value) {
        return switch (value) {
            case 0 -> RECOVERED;
            case 1 -> RECOVERING;
            default -> throw new IllegalArgumentException("Unknown leader recovery state " + value);
        };
    }
}
