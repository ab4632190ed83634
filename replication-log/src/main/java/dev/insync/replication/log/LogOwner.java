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

/**
 * What a {@link Log} tells the {@link LogDirectory} that opened it. A standalone log has
 * {@link #NONE}.
 */
interface LogOwner {

    /** An owner that is told nothing: the log alone goes offline on a storage failure. */
    LogOwner NONE = new LogOwner() {
        @Override
        public void onStorageFailure(Log log, ApiException failure) {
        }

        @Override
        public void onRecoveryPointLowered(Log log) {
        }
    };

    /**
     * §9: an I/O operation of {@code log} failed (the log is already offline). Called on the failing
     * thread, possibly under the log's lock: must not take any log's lock.
     */
    void onStorageFailure(Log log, ApiException failure);

    /**
     * LOG-7: a truncation lowered the recovery point below the data it had vouched for; persist it
     * now, before the log takes any new append (the caller holds the log's lock), so a crash cannot
     * leave a checkpoint that calls the new, unflushed bytes flushed. Must not take any log's lock.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR if it cannot be written
     */
    void onRecoveryPointLowered(Log log);
}
