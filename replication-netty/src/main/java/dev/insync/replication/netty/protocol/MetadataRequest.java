package dev.insync.replication.netty.protocol;

import java.util.List;
import java.util.Optional;

/**
 * A Metadata request: the named topics, or every topic when {@code topics} is empty (a null array
 * on the wire).
 */
public record MetadataRequest(Optional<List<String>> topics) {

    public MetadataRequest {
        topics = topics.map(List::copyOf);
    }

    /** Every topic. */
    public static MetadataRequest allTopics() {
        return new MetadataRequest(Optional.empty());
    }

    /** These topics. */
    public static MetadataRequest of(List<String> topics) {
        return new MetadataRequest(Optional.of(topics));
    }
}
