package dev.insync.replication.core.metadata.follower;

import java.util.concurrent.CompletionStage;

/**
 * A broker's way to the committed metadata log (CTL-5): separate from
 * {@link dev.insync.replication.core.metadata.ControllerChannel} because any controller node may
 * serve it, not only the active one. A stage may fail (transport error) or never complete (lost
 * link); {@link MetadataFollower} retries and abandons unanswered requests itself.
 */
public interface MetadataChannel {

    /** Long poll for the committed metadata after {@code request.afterOffset()}. */
    CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request);
}
