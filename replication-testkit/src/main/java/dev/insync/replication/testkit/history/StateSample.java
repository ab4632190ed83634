package dev.insync.replication.testkit.history;

import java.util.List;

/**
 * What one live broker believed about the partition at one instant of a simulation: sampled by
 * the simulator for the invariants that need internal state (INV-4, INV-7, INV-8). Not part of the
 * history file, which holds only what clients and the operator could see.
 *
 * @param t                      virtual time in ms
 * @param broker                 broker id
 * @param incarnation            how many times this broker has started (restart = +1)
 * @param leader                 whether it acts as leader
 * @param leaderEpoch            its current leader epoch
 * @param isr                    the ISR it holds (the maximal ISR for a leader)
 * @param hw                     its high watermark
 * @param leo                    its log end offset
 * @param epochStartOffsets      its leader-epoch cache as (epoch, startOffset) pairs
 */
public record StateSample(long t, int broker, int incarnation, boolean leader, int leaderEpoch, List<Integer> isr,
                          long hw, long leo, List<long[]> epochStartOffsets) {

    /** Immutable copies. */
    public StateSample {
        isr = List.copyOf(isr);
        epochStartOffsets = List.copyOf(epochStartOffsets);
    }
}
