package dev.insync.replication.log.record;

/** Which clock a batch's timestamps come from (attribute bit 3). */
public enum TimestampType {
    /** The producer's timestamp. */
    CREATE_TIME,
    /** The leader's clock at append; the leader rewrites maxTimestamp (LOG-4). */
    LOG_APPEND_TIME
}
