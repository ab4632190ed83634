package dev.insync.replication.controller.record;

/**
 * LDR-4 / ISR-7: the broker's session expired (or it was fenced by an administrator). It leaves every ISR in the same batch (PartitionChangeRecords); it stays fenced until an UnfenceBrokerRecord.
 *
 * @param brokerId    the broker
 * @param brokerEpoch the incarnation it is about (replay refuses any other)
 */
public record FenceBrokerRecord(int brokerId, long brokerEpoch) implements MetadataRecord {

    /** Validates the fields. */
    public FenceBrokerRecord {
        RecordChecks.brokerId("brokerId", brokerId);
        RecordChecks.nonNegative("brokerEpoch", brokerEpoch);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.FENCE_BROKER;
    }
}
