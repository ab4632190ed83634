package dev.insync.replication.testkit.simulation;

import dev.insync.replication.testkit.cluster.Mutation;

import java.util.EnumSet;
import java.util.Set;

/**
 * What one {@link Simulation} run does, apart from its seed.
 *
 * @param durationMs        virtual time of the faulty workload phase (the heal-and-quiesce phase comes after)
 * @param faults            the fault kinds that may be injected
 * @param brokers           cluster size; the one partition has every broker as a replica
 * @param produceTimeoutMs  the broker-side timeout of every produce call
 * @param producers         producer clients p1..pN
 * @param consumers         consumer clients c1..cN
 * @param initialMinIsr     min.insync.replicas at the start
 * @param mutations         TEST-ONLY deliberate bugs (see {@link Mutation}); empty for a real check
 */
public record SimulationSettings(long durationMs, Set<FaultKind> faults, int brokers, long produceTimeoutMs,
                                 int producers, int consumers, int initialMinIsr, Set<Mutation> mutations) {

    /** 60 simulated seconds, every fault kind, 3 brokers, 5 s produce timeout, 3 producers, 2 consumers, min ISR 2. */
    public static final SimulationSettings DEFAULT = new SimulationSettings(60_000, FaultKind.all(), 3, 5_000, 3, 2, 2,
            Set.of());

    /** Validates and copies. */
    public SimulationSettings {
        if (durationMs <= 0) {
            throw new IllegalArgumentException("Simulation duration must be positive, got " + durationMs + " ms");
        }
        if (brokers < 3) {
            throw new IllegalArgumentException("The fault model needs at least 3 brokers, got " + brokers);
        }
        if (produceTimeoutMs <= 0 || producers < 1 || consumers < 0) {
            throw new IllegalArgumentException("Bad workload: timeout " + produceTimeoutMs + " ms, " + producers
                    + " producers, " + consumers + " consumers");
        }
        if (initialMinIsr < 1 || initialMinIsr > brokers) {
            throw new IllegalArgumentException("min ISR " + initialMinIsr + " outside 1.." + brokers);
        }
        faults = faults.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(faults));
        mutations = mutations.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(mutations));
    }

    /** The same with another duration. */
    public SimulationSettings withDurationMs(long ms) {
        return new SimulationSettings(ms, faults, brokers, produceTimeoutMs, producers, consumers, initialMinIsr, mutations);
    }

    /** The same with other fault kinds. */
    public SimulationSettings withFaults(Set<FaultKind> kinds) {
        return new SimulationSettings(durationMs, kinds, brokers, produceTimeoutMs, producers, consumers, initialMinIsr,
                mutations);
    }

    /** The same with another produce timeout. */
    public SimulationSettings withProduceTimeoutMs(long ms) {
        return new SimulationSettings(durationMs, faults, brokers, ms, producers, consumers, initialMinIsr, mutations);
    }

    /** The same with another starting min ISR. */
    public SimulationSettings withInitialMinIsr(int minIsr) {
        return new SimulationSettings(durationMs, faults, brokers, produceTimeoutMs, producers, consumers, minIsr,
                mutations);
    }

    /** TEST-ONLY: the same with a deliberate bug injected. */
    public SimulationSettings withMutation(Mutation mutation) {
        Set<Mutation> m = EnumSet.of(mutation);
        m.addAll(mutations);
        return new SimulationSettings(durationMs, faults, brokers, produceTimeoutMs, producers, consumers, initialMinIsr, m);
    }
}
