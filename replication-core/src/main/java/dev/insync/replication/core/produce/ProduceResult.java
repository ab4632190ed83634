package dev.insync.replication.core.produce;

import dev.insync.replication.log.Errors;

/**
 * PRO-5: one partition's answer to a produce call: offsets on success, or one error.
 *
 * @param error            {@link Errors#NONE} on success
 * @param baseOffset       offset of the first appended record, -1 if nothing was appended
 * @param logAppendTimeMs  log-append time if the topic uses it, else -1
 */
public record ProduceResult(Errors error, long baseOffset, long logAppendTimeMs) {

    /** A failed answer. */
    public static ProduceResult failed(Errors error) {
        return new ProduceResult(error, -1L, -1L);
    }

    /** This answer with another error (offsets kept: the records may already be in the leader's log, PRO-3). */
    public ProduceResult withError(Errors newError) {
        return new ProduceResult(newError, baseOffset, logAppendTimeMs);
    }
}
