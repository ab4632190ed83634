package dev.insync.replication.testkit.cluster;

import dev.insync.replication.log.Errors;

/**
 * How one {@link TestProducer#send} ended: exactly once, with an offset or with an error (PRO-5).
 *
 * @param error        {@link Errors#NONE} on success
 * @param offset       the record's offset on success, else -1
 * @param leaderEpoch  the leader epoch it was written in on success, else -1
 */
public record ProduceOutcome(Errors error, long offset, int leaderEpoch) {

    /** A failure. */
    public static ProduceOutcome failed(Errors error) {
        return new ProduceOutcome(error, -1L, -1);
    }

    /** Whether the record was acknowledged. */
    public boolean isSuccess() {
        return error == Errors.NONE;
    }

    @Override
    public String toString() {
        return isSuccess() ? "ok, offset=" + offset : error.name();
    }
}
