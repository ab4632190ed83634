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
