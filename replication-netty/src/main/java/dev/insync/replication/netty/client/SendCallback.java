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

package dev.insync.replication.netty.client;

/**
 * What {@link InsyncClient#send(dev.insync.replication.log.TopicPartition, byte[], byte[], java.util.List, SendCallback)}
 * reports a record's outcome to, as Kafka's producer {@code Callback}: exactly once, with either where
 * the record was written or why it was not.
 *
 * <p>It runs on the client's sender, normally its event loop, in the order of the records' offsets
 * within a partition (a send refused at once, or a record failed by a closing client, reports in the
 * thread that sent or closed), so it must be quick and must not block. An exception it throws is
 * logged and does not keep the batch's other records from their outcome.
 */
@FunctionalInterface
public interface SendCallback {

    /**
     * @param metadata  where the record was written; {@code null} if it failed
     * @param exception why it failed; {@code null} if it was written
     */
    void onCompletion(RecordMetadata metadata, ProduceFailedException exception);
}
