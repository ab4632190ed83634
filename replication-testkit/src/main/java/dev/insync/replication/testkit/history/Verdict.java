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

import java.util.List;

/**
 * What {@link InvariantChecker} found in one history.
 *
 * @param violations broken invariants, in the order of the invariants' ids
 * @param excused    failures the history itself excuses: a partition that cannot become whole again
 *                   without an unclean election, which the run did not allow (LIVENESS, and INV-3 for
 *                   that partition). Not violations; counted so that a fault scheduler that makes
 *                   them common is noticed.
 */
public record Verdict(List<Violation> violations, List<Violation> excused) {

    /** Copies. */
    public Verdict {
        violations = List.copyOf(violations);
        excused = List.copyOf(excused);
    }

    /** Whether no invariant broke. */
    public boolean clean() {
        return violations.isEmpty();
    }
}
