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
 * One entry of the controller's metadata log (CTL-1, CTL-2). The controller's state is a function
 * of these records in log order: operations only produce them, and state changes only when they
 * are replayed. Every record has its own offset; the records of one operation form one atomic
 * batch. Records are immutable and validate their fields on construction, so a decoded record is
 * always well formed (whether it fits the state is checked on replay).
 */
public sealed interface MetadataRecord
        permits RegisterBrokerRecord, FenceBrokerRecord, UnfenceBrokerRecord, BrokerShutdownRecord,
        ReplicasOfflineRecord, TopicRecord, PartitionRecord, PartitionChangeRecord, ConfigRecord,
        RemoveTopicRecord {

    /** The record's type, which fixes its encoding. */
    MetadataRecordType type();
}
