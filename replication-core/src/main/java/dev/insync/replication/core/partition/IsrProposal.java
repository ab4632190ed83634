package dev.insync.replication.core.partition;

import dev.insync.replication.core.metadata.AlterPartitionRequest;

import java.util.Objects;

/**
 * One AlterPartition proposal of a leader (ISR-5): the item sent to the controller. Compared by identity so
 * that an answer to an older, identical-looking proposal is recognised as stale.
 */
public final class IsrProposal {

    private final AlterPartitionRequest.Item item;

    /** Wraps the item sent. */
    public IsrProposal(AlterPartitionRequest.Item item) {
        this.item = Objects.requireNonNull(item, "item");
    }

    /** What was (or will be) sent to the controller. */
    public AlterPartitionRequest.Item item() {
        return item;
    }

    @Override
    public String toString() {
        return "IsrProposal(" + item + ")";
    }
}
