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
import dev.insync.replication.core.metadata.AlterPartitionResponse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** An AlterPartition manager double that holds every proposal until the test answers it. */
final class HeldAlterPartitionSender implements AlterPartitionSender {

    /** One submitted proposal and its pending answer. */
    record Submitted(AlterPartitionRequest.Item item, CompletableFuture<AlterPartitionResponse.PartitionResult> future) {

        /** Answers as a controller accepting the proposal would (ISR-6: partition epoch + 1, same leader epoch). */
        void accept(int leaderId) {
            future.complete(new AlterPartitionResponse.PartitionResult(dev.insync.replication.log.Errors.NONE, leaderId,
                    item.leaderEpoch(), item.newIsrIds(), item.partitionEpoch() + 1));
        }
    }

    private final List<Submitted> submitted = new ArrayList<>();

    @Override
    public synchronized CompletableFuture<AlterPartitionResponse.PartitionResult> submit(AlterPartitionRequest.Item item) {
        CompletableFuture<AlterPartitionResponse.PartitionResult> future = new CompletableFuture<>();
        submitted.add(new Submitted(item, future));
        return future;
    }

    synchronized List<Submitted> all() {
        return List.copyOf(submitted);
    }

    synchronized Submitted last() {
        if (submitted.isEmpty()) {
            throw new AssertionError("No AlterPartition proposal was submitted");
        }
        return submitted.get(submitted.size() - 1);
    }

    synchronized int count() {
        return submitted.size();
    }
}
