/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

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
