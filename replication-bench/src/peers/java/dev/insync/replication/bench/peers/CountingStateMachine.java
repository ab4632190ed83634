package dev.insync.replication.bench.peers;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** A Ratis state machine that only counts applied entries: the peer's equivalent of "append and ack". */
public final class CountingStateMachine extends BaseStateMachine {

    private final AtomicLong applied = new AtomicLong();

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        applied.incrementAndGet();
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    /** Entries applied so far. */
    public long applied() {
        return applied.get();
    }
}
