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

package dev.insync.replication.core.partition;

import dev.insync.replication.log.Errors;

/**
 * PRO-3: whether an acks=all wait for one partition is over, and with which error.
 *
 * @param done  true when the wait is over
 * @param error the result when done ({@link Errors#NONE} on success); {@link Errors#NONE} while not done
 */
public record AckCheck(boolean done, Errors error) {

    /** Not yet: the HW has not reached the required offset. */
    public static final AckCheck NOT_YET = new AckCheck(false, Errors.NONE);
}
