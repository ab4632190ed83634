package dev.insync.replication.log.epoch;

/** One leader-epoch cache entry: the epoch and the first offset written in it (LOG-8). */
public record EpochEntry(int epoch, long startOffset) {
}
