package dev.insync.replication.controller.record;

/**
 * LDR-4 / ISR-7: the broker asked for a controlled shutdown; it leaves every ISR and leadership in the same batch and stays out until its next incarnation registers.
 *
 * @param brokerId    the broker
 * @param brokerEpoch the incarnation it is about (replay refuses any other)
 */
public record BrokerShutdownRecord(int brokerId, long brokerEpoch) implements MetadataRecord {

    /** Validates the fields. */
    public BrokerShutdownRecord {
        RecordChecks.brokerId("brokerId", brokerId);
        RecordChecks.nonNegative("brokerEpoch", brokerEpoch);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.BROKER_SHUTDOWN;
    }
}
