package dev.insync.replication.core.purgatory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.locks.Lock;

/**
 * An operation whose answer waits for a condition or a timeout (a parked acks=all produce, a long
 * poll fetch). It ends exactly once, by whichever comes first:
 * <ul>
 *   <li>{@link #tryComplete()} finds the condition met and calls {@link #forceComplete()}, which
 *   cancels the timer and runs {@link #onComplete()};</li>
 *   <li>the timer fires after {@link #delayMs()}: {@link #onExpiration()}, then
 *   {@link #onComplete()}.</li>
 * </ul>
 * Completion is decided by one compare-and-set, so concurrent checkers and the timer can race
 * safely; {@link #safeTryComplete()} also serialises checkers on the operation's lock so a
 * subclass's {@code tryComplete} never runs twice at once.
 */
public abstract class DelayedOperation {

    private final long delayMs;
    private static final VarHandle COMPLETED;

    static {
        try {
            COMPLETED = MethodHandles.lookup().findVarHandle(DelayedOperation.class, "completed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Set once, by compare-and-set through COMPLETED (a field, not an AtomicBoolean: see TimerTask#entry). */
    private volatile boolean completed;
    private static final Runnable NOTHING = () -> { };

    /** Null: checks are serialised on this operation's own monitor. */
    private final Lock lock;
    private final TimerTask expiry;

    /**
     * An operation whose {@link #tryComplete()} calls are serialised on its own monitor: no lock
     * object per operation, which with a million parked ones is two objects (and two cache misses
     * on completion) fewer each. Subclasses should not synchronise on the operation themselves.
     */
    protected DelayedOperation(long delayMs) {
        this.delayMs = delayMs;
        this.lock = null;
        this.expiry = new Expiry(delayMs);
    }

    /**
     * @param delayMs how long the operation may wait, from when the purgatory starts timing it
     * @param lock    serialises {@link #tryComplete()} calls; may be shared among operations
     */
    protected DelayedOperation(long delayMs, Lock lock) {
        this.delayMs = delayMs;
        this.lock = Objects.requireNonNull(lock, "lock");
        this.expiry = new Expiry(delayMs);
    }

    /** The timeout of this operation. */
    public final long delayMs() {
        return delayMs;
    }

    /**
     * Completes the operation if nobody has yet: cancels its timer, then runs {@link #onComplete()}.
     *
     * @return true only for the one call that completed it
     */
    public final boolean forceComplete() {
        if (!COMPLETED.compareAndSet(this, false, true)) {
            return false;
        }
        expiry.cancel();
        onComplete();
        return true;
    }

    /** True once the operation has completed (by a check, by force or by expiry). */
    public final boolean isCompleted() {
        return completed;
    }

    /**
     * Checks the condition; if it holds, calls {@link #forceComplete()} and returns its result.
     * Called by the purgatory under the operation's lock.
     */
    public abstract boolean tryComplete();

    /**
     * The position this operation waits for under {@code key} (for a produce: the offset the
     * partition's HW must reach), by which the purgatory keeps each key's watch list sorted and
     * {@link DelayedOperationPurgatory#checkAndCompleteUpTo} skips what cannot be reached yet.
     * {@link Long#MIN_VALUE} (the default): every check of the key tries it; {@link Long#MAX_VALUE}:
     * only {@link DelayedOperationPurgatory#checkAndComplete} does. Must not change while watched.
     */
    public long watchPosition(Object key) {
        return Long.MIN_VALUE;
    }

    /** Called once when the timer fired first, just before {@link #onComplete()}. */
    public abstract void onExpiration();

    /** Called exactly once when the operation ends, whichever way; sends the answer. */
    public abstract void onComplete();

    /** {@link #tryComplete()} under the operation's lock; false if it was already complete. */
    public final boolean safeTryComplete() {
        return safeTryCompleteOrElse(NOTHING);
    }

    /**
     * Under the operation's lock: tries to complete, and if that fails runs {@code orElse} (the
     * purgatory registers its watchers there). A checker that finds the watch takes the same lock;
     * one that ran before the watch existed is covered by the purgatory's second try.
     */
    final boolean safeTryCompleteOrElse(Runnable orElse) {
        if (lock == null) {
            synchronized (this) {
                return tryCompleteOrElseLocked(orElse);
            }
        }
        lock.lock();
        try {
            return tryCompleteOrElseLocked(orElse);
        } finally {
            lock.unlock();
        }
    }

    private boolean tryCompleteOrElseLocked(Runnable orElse) {
        if (isCompleted()) {
            return false;
        }
        if (tryComplete()) {
            return true;
        }
        orElse.run();
        return false;
    }

    /** The timer task that expires this operation. */
    final TimerTask expiryTask() {
        return expiry;
    }

    /** Fires when the delay passes; completes the operation only if nothing else did first. */
    private final class Expiry extends TimerTask {
        Expiry(long delayMs) {
            super(delayMs);
        }

        @Override
        public void run() {
            if (COMPLETED.compareAndSet(DelayedOperation.this, false, true)) {
                cancel(); // no-op when the timer ran it; unlinks it when run any other way
                onExpiration();
                onComplete();
            }
        }

        @Override
        public String toString() {
            return "Expiry(" + DelayedOperation.this + ")";
        }
    }
}
