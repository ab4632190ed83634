package dev.insync.replication.controller.record;

/**
 * A topic was created. The same batch holds its {@link ConfigRecord}s (every topic config is
 * written explicitly, so replay never depends on the controller's defaults) and one
 * {@link PartitionRecord} per partition.
 *
 * @param name            topic name (Kafka's rules: 1 to 249 of {@code [a-zA-Z0-9._-]})
 * @param partitionCount  number of partitions, at least 1
 */
public record TopicRecord(String name, int partitionCount) implements MetadataRecord {

    /** Bound on the partitions of one topic. */
    public static final int MAX_PARTITIONS = 100_000;

    /** Validates the fields. */
    public TopicRecord {
        RecordChecks.topic(name);
        if (partitionCount < 1 || partitionCount > MAX_PARTITIONS) {
            throw new IllegalArgumentException("Topic " + name + " needs 1 to " + MAX_PARTITIONS + " partitions, got "
                    + partitionCount);
        }
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.TOPIC;
    }
}
