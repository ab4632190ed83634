package dev.insync.replication.core.partition;

import dev.insync.replication.log.Errors;

/**
 * PRO-3: whether an acks=all wait for one partition is over, and with which error.
 *
 * @param done  true when the wait is over
 * @param error the result when done ({@link Errors#NONE} on success); {@link Errors#NONE} while not done
 */
public record AckCheck(boolean done, Errors error) {

    /** Not yet: the HW has not reached the required offset. */
    public static final AckCheck NOT_YET = new AckCheck(false, Errors.NONE);
}
