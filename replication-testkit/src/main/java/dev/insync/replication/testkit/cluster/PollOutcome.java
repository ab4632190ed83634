package dev.insync.replication.testkit.cluster;

import dev.insync.replication.log.Errors;

import java.util.List;

/**
 * How one {@link TestConsumer} poll ended.
 *
 * @param error         {@link Errors#NONE}, or the error the broker answered (or NOT_LEADER_OR_FOLLOWER
 *                      when no leader was known); meaningless when {@code timedOut}
 * @param timedOut      no answer came within the poll's timeout: the client gave up, and an answer
 *                      arriving later is discarded (the position does not move)
 * @param records       the records the consumer was given, byte for byte, in offset order (empty unless NONE)
 * @param nextPosition  the consumer's position afterwards
 */
public record PollOutcome(Errors error, boolean timedOut, List<ConsumedBytes> records, long nextPosition) {

    /** Copies. */
    public PollOutcome {
        records = List.copyOf(records);
    }

    /** The UTF-8 view of {@link #records()}. */
    public List<ConsumedRecord> textRecords() {
        return records.stream().map(ConsumedRecord::of).toList();
    }

    /** {@code NONE}, the error's name, or {@code TIMEOUT}: the outcome as the history writes it. */
    public String outcomeName() {
        return timedOut ? "TIMEOUT" : error.name();
    }
}
