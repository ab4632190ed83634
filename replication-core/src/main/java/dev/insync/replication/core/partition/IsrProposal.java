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

import dev.insync.replication.core.metadata.AlterPartitionRequest;

import java.util.Objects;

/**
 * One AlterPartition proposal of a leader (ISR-5): the item sent to the controller. Compared by identity so
 * that an answer to an older, identical-looking proposal is recognised as stale.
 */
public final class IsrProposal {

    private final AlterPartitionRequest.Item item;

    /** Wraps the item sent. */
    public IsrProposal(AlterPartitionRequest.Item item) {
        this.item = Objects.requireNonNull(item, "item");
    }

    /** What was (or will be) sent to the controller. */
    public AlterPartitionRequest.Item item() {
        return item;
    }

    @Override
    public String toString() {
        return "IsrProposal(" + item + ")";
    }
}
