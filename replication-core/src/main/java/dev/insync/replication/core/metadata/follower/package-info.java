/**
 * The broker side of the metadata stream (CTL-5):
 * {@link dev.insync.replication.core.metadata.follower.MetadataFollower} follows the committed
 * metadata log for one broker through a
 * {@link dev.insync.replication.core.metadata.follower.MetadataChannel} and applies it to that
 * broker's {@code ReplicaManager}: in offset order, once, from its last offset, loading an
 * {@link dev.insync.replication.core.metadata.follower.MetadataImage} when the log it needs is
 * gone, and merging the initial load.
 */
package dev.insync.replication.core.metadata.follower;
