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

package dev.insync.replication.controller.api;

/**
 * Sets one topic config at run time, e.g. {@code min.insync.replicas} (SCN-2); the topic's
 * partitions are re-evaluated (ELR cleared where the ISR now reaches the minimum, elections where
 * unclean election was just enabled).
 *
 * @param topic the topic
 * @param name  {@code min.insync.replicas} or {@code unclean.leader.election.enable}
 * @param value the new value
 */
public record AlterTopicConfigRequest(String topic, String name, String value) {
}
