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

/**
 * The controller (contract ISR-6..8, LDR-4/5, CTL-1..6) as a state machine over a metadata log, after
 * Kafka's KRaft {@code QuorumController}: {@link dev.insync.replication.controller.QuorumController}
 * drives one controller node over a {@link dev.insync.replication.controller.log.MetadataLog};
 * {@link dev.insync.replication.controller.BrokerHeartbeatManager} keeps liveness in memory (CTL-3).
 * See docs/controller.md.
 *
 * <p>Sub-packages: {@code record} (the records and their encoding), {@code state} (the state and
 * its replay), {@code control} (the operations, pure), {@code log} (the log seam and its in-memory
 * implementation), {@code api} (the transport-agnostic requests and responses).
 */
package dev.insync.replication.controller;
