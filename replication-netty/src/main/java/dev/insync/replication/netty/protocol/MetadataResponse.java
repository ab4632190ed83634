package dev.insync.replication.netty.protocol;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;

import java.util.List;
import java.util.Objects;

/**
 * What {@code kafka-topics --describe} prints, per topic and partition: leader, leader epoch,
 * replicas, ISR, ELR, LastKnownElr (and the partition epoch and recovery state), plus the brokers'
 * endpoints and the active controller.
 *
 * @param controllerId the active controller's id, -1 if unknown
 */
public record MetadataResponse(List<BrokerEndpoint> brokers, int controllerId, List<TopicMetadata> topics) {

    public MetadataResponse {
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
    }

    /**
     * One topic: {@link Errors#NONE} with its partitions, or UNKNOWN_TOPIC_OR_PARTITION with none.
     * Every partition's topic is {@code name}.
     */
    public record TopicMetadata(Errors error, String name, List<PartitionRegistration> partitions) {
        public TopicMetadata {
            Objects.requireNonNull(error, "error");
            Objects.requireNonNull(name, "name");
            partitions = List.copyOf(partitions);
            for (PartitionRegistration p : partitions) {
                if (!p.topicPartition().topic().equals(name)) {
                    throw new IllegalArgumentException("Partition " + p.topicPartition() + " listed under topic " + name);
                }
            }
        }
    }
}
