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

package dev.insync.replication.controller.control;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Round-robin replica placement, after the idea of Kafka's classic assignment: partition p's first
 * replica is the (p mod n)-th broker, its followers the next brokers at a distance that grows by one
 * after every n partitions, so leaders and followers both spread evenly. Deterministic: brokers
 * are taken in id order and the walk starts at the first one (Kafka starts at a random broker).
 */
public final class ReplicaPlacer {

    private ReplicaPlacer() {
    }

    /**
     * One replica list per partition.
     *
     * @param partitions        number of partitions, at least 1
     * @param replicationFactor replicas per partition, 1 to the number of brokers
     * @param brokers           the brokers to place on (any order; duplicates ignored)
     * @throws IllegalArgumentException if the numbers do not fit
     */
    public static List<List<Integer>> place(int partitions, int replicationFactor, List<Integer> brokers) {
        List<Integer> ids = new ArrayList<>(new TreeSet<>(brokers));
        int n = ids.size();
        if (partitions < 1) {
            throw new IllegalArgumentException("needs at least one partition, got " + partitions);
        }
        if (replicationFactor < 1 || replicationFactor > n) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " needs 1 to " + n
                    + " unfenced brokers, there are " + n + " " + ids);
        }
        List<List<Integer>> assignment = new ArrayList<>(partitions);
        int shift = 0;
        for (int p = 0; p < partitions; p++) {
            if (p > 0 && p % n == 0) {
                shift++;
            }
            int first = p % n;
            List<Integer> replicas = new ArrayList<>(replicationFactor);
            replicas.add(ids.get(first));
            for (int j = 0; j < replicationFactor - 1; j++) {
                // Followers at distance 1 + ((shift + j) mod (n - 1)): never the first broker again.
                replicas.add(ids.get((first + 1 + (shift + j) % (n - 1)) % n));
            }
            assignment.add(List.copyOf(replicas));
        }
        return assignment;
    }
}
