package dev.insync.replication.log.epoch;

import java.util.List;
import java.util.OptionalInt;

/** LOG-8: the ordered (epoch, startOffset) list persisted to {@code leader-epoch-checkpoint}. */
public final class LeaderEpochCache {

    private LeaderEpochCache() {
    }

    public void assign(int epoch, long startOffset) { throw new UnsupportedOperationException("epoch cache: issue 2"); }

    public EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) { throw new UnsupportedOperationException("epoch cache: issue 2"); }

    public void truncateFromEnd(long endOffset) { throw new UnsupportedOperationException("epoch cache: issue 2"); }

    public void truncateFromStart(long startOffset) { throw new UnsupportedOperationException("epoch cache: issue 2"); }

    public OptionalInt epochForOffset(long offset) { throw new UnsupportedOperationException("epoch cache: issue 2"); }

    public OptionalInt latestEpoch() { throw new UnsupportedOperationException("epoch cache: issue 2"); }

    public List<EpochEntry> epochEntries() { throw new UnsupportedOperationException("epoch cache: issue 2"); }

    public void clear() { throw new UnsupportedOperationException("epoch cache: issue 2"); }
}
