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

package dev.insync.replication.testkit.simulation;

import dev.insync.replication.testkit.cluster.Mutation;

import java.util.EnumSet;
import java.util.Set;
import java.util.Collections;

/**
 * What one {@link Simulation} run does, apart from its seed (the seed draws the rest: see
 * {@link SeedProfile}).
 *
 * @param durationMs        virtual time of the faulty workload phase (the heal-and-quiesce phase comes after)
 * @param faults            the fault kinds that may be injected
 * @param brokers           cluster size; every partition has every broker as a replica
 * @param produceTimeoutMs  the broker-side timeout of every produce call
 * @param producers         producer clients p1..pN
 * @param consumers         consumer clients c1..cN
 * @param initialMinIsr     min.insync.replicas at the start; 0 lets each seed draw it (2 most of the time)
 * @param uncleanShare      the share of seeds that run with unclean leader election enabled, in [0, 1]
 * @param mutations         TEST-ONLY deliberate bugs (see {@link Mutation}); empty for a real check
 */
public record SimulationSettings(long durationMs, Set<FaultKind> faults, int brokers, long produceTimeoutMs,
                                 int producers, int consumers, int initialMinIsr, double uncleanShare,
                                 Set<Mutation> mutations) {

    /** Longest faulty phase a run may be given (the controller's metadata log is bounded). */
    public static final long MAX_DURATION_MS = 1_000_000_000L;

    /**
     * The share of seeds with unclean leader election enabled. CTL-6 (the uncleanly elected leader
     * reports the partition recovered) lets such partitions regrow their ISR, so they are checked
     * for convergence and liveness like the others; change it with {@link #withUncleanShare} (the
     * CLI's {@code --unclean-share}).
     */
    public static final double DEFAULT_UNCLEAN_SHARE = 0.15;

    /**
     * 60 simulated seconds, every fault kind, 3 brokers, 5 s produce timeout, 3 producers, 2
     * consumers, min ISR drawn per seed, {@link #DEFAULT_UNCLEAN_SHARE} of seeds unclean.
     */
    public static final SimulationSettings DEFAULT = new SimulationSettings(60_000, FaultKind.all(), 3, 5_000, 3, 2, 0,
            DEFAULT_UNCLEAN_SHARE, Set.of());

    /** Validates and copies. */
    public SimulationSettings {
        if (durationMs <= 0 || durationMs > MAX_DURATION_MS) {
            throw new IllegalArgumentException("Simulation duration must be in 1.." + MAX_DURATION_MS + " ms, got "
                    + durationMs + " ms");
        }
        if (brokers < 3) {
            throw new IllegalArgumentException("The fault model needs at least 3 brokers, got " + brokers);
        }
        if (produceTimeoutMs <= 0 || producers < 1 || consumers < 0) {
            throw new IllegalArgumentException("Bad workload: timeout " + produceTimeoutMs + " ms, " + producers
                    + " producers, " + consumers + " consumers");
        }
        if (initialMinIsr < 0 || initialMinIsr > brokers) {
            throw new IllegalArgumentException("min ISR " + initialMinIsr + " outside 0 (drawn per seed) .." + brokers);
        }
        if (!(uncleanShare >= 0 && uncleanShare <= 1)) {
            throw new IllegalArgumentException("Unclean share " + uncleanShare + " is not in [0, 1]");
        }
        faults = faults.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(faults)); // enum order (INV-6)
        mutations = mutations.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(mutations));
    }

    /** The same with another duration. */
    public SimulationSettings withDurationMs(long ms) {
        return new SimulationSettings(ms, faults, brokers, produceTimeoutMs, producers, consumers, initialMinIsr,
                uncleanShare, mutations);
    }

    /** The same with other fault kinds. */
    public SimulationSettings withFaults(Set<FaultKind> kinds) {
        return new SimulationSettings(durationMs, kinds, brokers, produceTimeoutMs, producers, consumers, initialMinIsr,
                uncleanShare, mutations);
    }

    /** The same with another produce timeout. */
    public SimulationSettings withProduceTimeoutMs(long ms) {
        return new SimulationSettings(durationMs, faults, brokers, ms, producers, consumers, initialMinIsr, uncleanShare,
                mutations);
    }

    /** The same with a fixed starting min ISR (0: drawn per seed). */
    public SimulationSettings withInitialMinIsr(int minIsr) {
        return new SimulationSettings(durationMs, faults, brokers, produceTimeoutMs, producers, consumers, minIsr,
                uncleanShare, mutations);
    }

    /** The same with another share of seeds that enable unclean leader election. */
    public SimulationSettings withUncleanShare(double share) {
        return new SimulationSettings(durationMs, faults, brokers, produceTimeoutMs, producers, consumers, initialMinIsr,
                share, mutations);
    }

    /** TEST-ONLY: the same with a deliberate bug injected. */
    public SimulationSettings withMutation(Mutation mutation) {
        Set<Mutation> m = EnumSet.of(mutation);
        m.addAll(mutations);
        return new SimulationSettings(durationMs, faults, brokers, produceTimeoutMs, producers, consumers, initialMinIsr,
                uncleanShare, m);
    }
}
