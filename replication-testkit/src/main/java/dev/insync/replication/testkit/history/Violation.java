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

package dev.insync.replication.testkit.history;

/**
 * One broken invariant.
 *
 * @param invariant  the contract's rule id, e.g. {@code INV-1}
 * @param t          virtual time it was observed (or -1 for the final state)
 * @param detail     what was expected and what was seen
 */
public record Violation(String invariant, long t, String detail) {

    @Override
    public String toString() {
        return invariant + (t >= 0 ? " at t=" + t + "ms" : " in the final state") + ": " + detail;
    }
}
