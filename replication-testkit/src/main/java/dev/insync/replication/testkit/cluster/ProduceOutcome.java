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

package dev.insync.replication.testkit.cluster;

import dev.insync.replication.log.Errors;

/**
 * How one {@link TestProducer#send} ended: exactly once, with an offset or with an error (PRO-5).
 *
 * @param error        {@link Errors#NONE} on success
 * @param offset       the record's offset on success, else -1
 * @param leaderEpoch  the leader epoch it was written in on success, else -1
 */
public record ProduceOutcome(Errors error, long offset, int leaderEpoch) {

    /** A failure. */
    public static ProduceOutcome failed(Errors error) {
        return new ProduceOutcome(error, -1L, -1);
    }

    /** Whether the record was acknowledged. */
    public boolean isSuccess() {
        return error == Errors.NONE;
    }

    @Override
    public String toString() {
        return isSuccess() ? "ok, offset=" + offset : error.name();
    }
}
