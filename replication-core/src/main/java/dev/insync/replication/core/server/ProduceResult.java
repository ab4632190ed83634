package dev.insync.replication.core.server;

import dev.insync.replication.log.Errors;

import java.util.Objects;

/**
 * One partition's answer to a produce (PRO-5).
 *
 * @param error            {@link Errors#NONE} on success, else one error from SPEC §9
 * @param baseOffset       offset of the first appended record, -1 if nothing was appended
 * @param logAppendTimeMs  the log-append time when the topic uses it, else -1
 */
public record ProduceResult(Errors error, long baseOffset, long logAppendTimeMs) {

    /** Requires an error value. */
    public ProduceResult {
        Objects.requireNonNull(error, "error");
    }

    /** A failure before anything was appended. */
    public static ProduceResult failed(Errors error) {
        return new ProduceResult(error, -1L, -1L);
    }
}
