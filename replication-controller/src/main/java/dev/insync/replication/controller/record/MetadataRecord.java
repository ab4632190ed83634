package dev.insync.replication.controller.record;

/**
 * One entry of the controller's metadata log (CTL-1, CTL-2). The controller's state is a function
 * of these records in log order: operations only produce them, and state changes only when they
 * are replayed. Every record has its own offset; the records of one operation form one atomic
 * batch. Records are immutable and validate their fields on construction, so a decoded record is
 * always well formed (whether it fits the state is checked on replay).
 */
public sealed interface MetadataRecord
        permits RegisterBrokerRecord, FenceBrokerRecord, UnfenceBrokerRecord, BrokerShutdownRecord,
        ReplicasOfflineRecord, TopicRecord, PartitionRecord, PartitionChangeRecord, ConfigRecord {

    /** The record's type, which fixes its encoding. */
    MetadataRecordType type();
}
