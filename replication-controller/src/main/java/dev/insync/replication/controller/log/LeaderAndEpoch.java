package dev.insync.replication.controller.log;

import java.util.OptionalInt;

/**
 * Who leads the metadata log, and in which epoch (a Raft term). The leader is the active
 * controller; only it may append, and only in its epoch.
 *
 * @param leaderId the leader's node id, empty when there is none
 * @param epoch    the epoch, growing with every change of leadership
 */
public record LeaderAndEpoch(OptionalInt leaderId, int epoch) {

    /** No leader yet. */
    public static final LeaderAndEpoch NONE = new LeaderAndEpoch(OptionalInt.empty(), 0);

    /** Whether {@code nodeId} leads. */
    public boolean isLeader(int nodeId) {
        return leaderId.isPresent() && leaderId.getAsInt() == nodeId;
    }
}
