package dev.insync.replication.netty.protocol;

import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.log.TopicPartition;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The answer to a {@link ProduceRequest}: one {@link ProduceResult} per partition (PRO-5), in request order. */
public record ProduceResponse(Map<TopicPartition, ProduceResult> partitions) {

    public ProduceResponse {
        partitions = Collections.unmodifiableMap(new LinkedHashMap<>(partitions));
    }
}
