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

package dev.insync.replication.netty.protocol;

import dev.insync.replication.core.partition.ReplicaDescription;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEntry;

import java.util.ArrayList;
import java.util.List;

/**
 * DescribeReplicas response v0: replicas (array of topic string, partition int32,
 * leader int8, leaderEpoch int32, isr int32 array, highWatermark int64, logEndOffset int64,
 * logStartOffset int64, epochs: array of epoch int32, startOffset int64).
 */
public final class DescribeReplicasResponseCodec implements MessageCodec<DescribeReplicasResponse> {

    public static final DescribeReplicasResponseCodec INSTANCE = new DescribeReplicasResponseCodec();

    private static final int MIN_REPLICA_BYTES = 2 + 4 + 1 + 4 + 4 + 3 * 8 + 4;
    private static final int EPOCH_ENTRY_BYTES = 4 + 8;

    private DescribeReplicasResponseCodec() {
    }

    @Override
    public void write(DescribeReplicasResponse r, short version, WireWriter out) {
        out.arrayLength(r.replicas().size());
        for (ReplicaDescription d : r.replicas()) {
            out.string(d.topicPartition().topic(), Limits.TOPIC_NAME_MAX_BYTES, "topic")
                    .int32(d.topicPartition().partition()).bool(d.leader()).int32(d.leaderEpoch());
            MetadataResponseCodec.ids(d.isr(), out);
            out.int64(d.highWatermark()).int64(d.logEndOffset()).int64(d.logStartOffset());
            out.arrayLength(d.epochs().size());
            for (EpochEntry e : d.epochs()) {
                out.int32(e.epoch()).int64(e.startOffset());
            }
        }
    }

    @Override
    public DescribeReplicasResponse read(short version, WireReader in) {
        int n = in.arrayLength("replicas", MIN_REPLICA_BYTES);
        List<ReplicaDescription> replicas = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String topic = in.topic("replica topic");
            int partition = in.partition("replica partition of " + topic);
            boolean leader = in.bool("leader");
            int leaderEpoch = in.int32AtLeast("leaderEpoch", -1);
            List<Integer> isr = MetadataResponseCodec.ids(in, "isr");
            long hw = in.int64("highWatermark");
            long leo = in.int64("logEndOffset");
            long logStart = in.int64("logStartOffset");
            int nEpochs = in.arrayLength("epochs of " + topic + "-" + partition, EPOCH_ENTRY_BYTES);
            List<EpochEntry> epochs = new ArrayList<>(nEpochs);
            for (int e = 0; e < nEpochs; e++) {
                int epoch = in.int32AtLeast("epoch", 0);
                int pos = in.position();
                long start = in.int64("epoch start offset");
                if (start < 0) {
                    throw new MalformedFrameException("Malformed frame: epoch start offset at byte " + pos + " is " + start);
                }
                epochs.add(new EpochEntry(epoch, start));
            }
            replicas.add(new ReplicaDescription(new TopicPartition(topic, partition), leader, leaderEpoch, isr, hw, leo,
                    logStart, epochs));
        }
        return new DescribeReplicasResponse(replicas);
    }
}
