package dev.insync.replication.testkit.cluster;

/**
 * A record a {@link TestConsumer} read (always below the leader's HW).
 *
 * @param offset       its offset
 * @param leaderEpoch  the partitionLeaderEpoch of its batch
 * @param key          UTF-8 key, or null
 * @param value        UTF-8 value, or null
 */
public record ConsumedRecord(long offset, int leaderEpoch, String key, String value) {
}
