package dev.insync.replication.core.time;

/**
 * The clock every component reads; never {@code System.currentTimeMillis()} inside logic.
 * Production uses {@link #SYSTEM}; the simulator supplies virtual time.
 */
public interface Time {

    /** Wall-clock milliseconds since the epoch. */
    long milliseconds();

    /** Monotonic nanoseconds, for measuring durations. */
    long nanoseconds();

    /** The system clock. */
    Time SYSTEM = new Time() {
        @Override
        public long milliseconds() {
            return System.currentTimeMillis();
        }

        @Override
        public long nanoseconds() {
            return System.nanoTime();
        }
    };
}
