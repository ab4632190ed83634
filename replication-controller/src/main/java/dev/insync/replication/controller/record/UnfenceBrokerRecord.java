package dev.insync.replication.controller.record;

/**
 * LDR-4: a heartbeat showed the broker caught up with metadata (metadata offset at or past its broker epoch): it may be in ISRs and lead again.
 *
 * @param brokerId    the broker
 * @param brokerEpoch the incarnation it is about (replay refuses any other)
 */
public record UnfenceBrokerRecord(int brokerId, long brokerEpoch) implements MetadataRecord {

    /** Validates the fields. */
    public UnfenceBrokerRecord {
        RecordChecks.brokerId("brokerId", brokerId);
        RecordChecks.nonNegative("brokerEpoch", brokerEpoch);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.UNFENCE_BROKER;
    }
}
