package dev.insync.replication.core.metadata;

import dev.insync.replication.log.TopicPartition;

import java.util.List;
import java.util.Map;

/**
 * A batch of metadata changes published by the controller, applied by each broker in offset order.
 *
 * @param offset                  position in the controller's metadata log, strictly increasing
 * @param brokers                 changed broker registrations
 * @param partitions              changed partition registrations
 * @param deletedPartitions       partitions removed
 * @param minInsyncReplicasByTopic changed {@code min.insync.replicas} per topic
 */
public record MetadataDelta(long offset, List<BrokerRegistration> brokers, List<PartitionRegistration> partitions,
                            List<TopicPartition> deletedPartitions, Map<String, Integer> minInsyncReplicasByTopic) {

    /** Immutable copies. */
    public MetadataDelta {
        brokers = List.copyOf(brokers);
        partitions = List.copyOf(partitions);
        deletedPartitions = List.copyOf(deletedPartitions);
        minInsyncReplicasByTopic = Map.copyOf(minInsyncReplicasByTopic);
    }
}
