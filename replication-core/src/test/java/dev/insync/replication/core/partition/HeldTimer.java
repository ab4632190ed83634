package dev.insync.replication.core.partition;

import dev.insync.replication.core.purgatory.Timer;
import dev.insync.replication.core.purgatory.TimerTask;

import java.util.ArrayList;
import java.util.List;

/** A purgatory timer that fires only when the test says time is up. */
final class HeldTimer implements Timer {

    private final List<TimerTask> tasks = new ArrayList<>();

    @Override
    public synchronized void add(TimerTask task) {
        tasks.add(task);
    }

    @Override
    public synchronized int size() {
        return tasks.size();
    }

    @Override
    public void close() {
    }

    /** Runs every held task (each expires its operation unless it already completed). */
    void expireAll() {
        List<TimerTask> due;
        synchronized (this) {
            due = new ArrayList<>(tasks);
            tasks.clear();
        }
        due.forEach(TimerTask::run);
    }
}
