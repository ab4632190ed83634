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

package dev.insync.replication.core.server;

import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A leader's fetch sessions (Kafka's {@code FetchSessionCache}, KIP-227, FET-7) by id, and, for each
 * partition, the sessions holding it, so that an append or a leadership change reaches the sessions
 * that fetch the partition without a walk over all of them.
 *
 * <p>Bounded: at most {@code maxSlots} sessions (Kafka's {@code max.incremental.fetch.session.cache.slots},
 * default 1000). Opening one ends first the sessions of the same follower from an older broker epoch
 * (a restarted follower's old incarnation) and the sessions unused for {@code evictionMs} (Kafka's
 * {@code min.incremental.fetch.session.eviction.ms}, 120 s: their fetcher went away); if the cache
 * is still full, no session is opened and the follower keeps fetching in full (an active session is
 * never evicted for a new one, so two fetchers can never keep evicting each other's session).
 *
 * <p>Ids are never 0 and are not reused while open; they mix a seed (the leader's broker epoch, so a
 * restarted leader does not hand out the ids of its previous incarnation) with a counter, which keeps
 * a simulated run repeatable. Thread-safe; the session map is changed under this cache's monitor.
 */
final class FetchSessionCache {

    /** Kafka's {@code max.incremental.fetch.session.cache.slots} default. */
    static final int DEFAULT_MAX_SLOTS = 1000;
    /** Kafka's {@code min.incremental.fetch.session.eviction.ms} default. */
    static final long DEFAULT_EVICTION_MS = 120_000L;

    private static final FetchSession[] NONE = new FetchSession[0];

    private final int maxSlots;
    private final long evictionMs;
    /** In opening order. Guarded by this. */
    private final Map<Integer, FetchSession> sessions = new LinkedHashMap<>();
    /** Copy-on-write arrays, changed under this cache's monitor, read without it. */
    private final Map<TopicPartition, FetchSession[]> byPartition = new ConcurrentHashMap<>();
    private long opened;

    FetchSessionCache(int maxSlots, long evictionMs) {
        if (maxSlots < 0) {
            throw new IllegalArgumentException("Negative fetch session cache slots " + maxSlots);
        }
        if (evictionMs < 0) {
            throw new IllegalArgumentException("Negative fetch session eviction time " + evictionMs + " ms");
        }
        this.maxSlots = maxSlots;
        this.evictionMs = evictionMs;
    }

    /** What {@link #open} did: the new session (null if the cache is full) and the sessions it ended. */
    record Opened(FetchSession session, List<FetchSession> ended) {
    }

    /**
     * Opens a session for follower {@code replicaId} in broker epoch {@code brokerEpoch}, first ending
     * that follower's sessions of older broker epochs and the sessions unused for the eviction time;
     * the ended sessions are closed by the caller.
     *
     * @param idSeed mixed into the id (the leader's broker epoch)
     */
    synchronized Opened open(int replicaId, long brokerEpoch, long nowMs, long idSeed) {
        List<FetchSession> ended = new ArrayList<>();
        for (FetchSession s : sessions.values()) {
            boolean staleIncarnation = s.replicaId == replicaId && s.brokerEpoch < brokerEpoch;
            if (staleIncarnation || nowMs - s.lastUsedMs() >= evictionMs) {
                ended.add(s);
            }
        }
        ended.forEach(this::removeLocked);
        if (sessions.size() >= maxSlots) {
            return new Opened(null, ended);
        }
        int id;
        do {
            id = mix(idSeed, ++opened);
        } while (id == FetchRequest.NO_SESSION_ID || sessions.containsKey(id));
        FetchSession session = new FetchSession(id, replicaId, brokerEpoch, nowMs);
        sessions.put(id, session);
        return new Opened(session, ended);
    }

    /** A positive int from the seed and the counter (SplitMix64's finaliser). */
    private static int mix(long seed, long counter) {
        long z = seed * 0x9E3779B97F4A7C15L + counter;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (int) (z & 0x7fffffff);
    }

    /** The open session {@code id}, or null. */
    synchronized FetchSession get(int id) {
        return sessions.get(id);
    }

    /** Removes {@code session} and its partitions' index entries; whether it was there. The caller closes it. */
    synchronized boolean remove(FetchSession session) {
        if (sessions.get(session.id) != session) {
            return false;
        }
        removeLocked(session);
        return true;
    }

    private void removeLocked(FetchSession session) {
        sessions.remove(session.id);
        for (TopicPartition tp : session.topicPartitions()) {
            unindex(tp, session);
        }
    }

    /** Every open session, removed (shutdown). */
    synchronized List<FetchSession> removeAll() {
        List<FetchSession> all = new ArrayList<>(sessions.values());
        sessions.clear();
        byPartition.clear();
        return all;
    }

    /** How many sessions are open. */
    synchronized int size() {
        return sessions.size();
    }

    /** Records that {@code session} holds {@code tp} (if the session is still in the cache). */
    synchronized void index(TopicPartition tp, FetchSession session) {
        if (sessions.get(session.id) != session) {
            return;
        }
        FetchSession[] current = byPartition.getOrDefault(tp, NONE);
        for (FetchSession s : current) {
            if (s == session) {
                return;
            }
        }
        FetchSession[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = session;
        byPartition.put(tp, next);
    }

    /** Records that {@code session} no longer holds {@code tp}. */
    synchronized void unindex(TopicPartition tp, FetchSession session) {
        FetchSession[] current = byPartition.get(tp);
        if (current == null) {
            return;
        }
        int at = -1;
        for (int i = 0; i < current.length; i++) {
            if (current[i] == session) {
                at = i;
            }
        }
        if (at < 0) {
            return;
        }
        if (current.length == 1) {
            byPartition.remove(tp);
            return;
        }
        FetchSession[] next = new FetchSession[current.length - 1];
        System.arraycopy(current, 0, next, 0, at);
        System.arraycopy(current, at + 1, next, at, current.length - at - 1);
        byPartition.put(tp, next);
    }

    /** The sessions holding {@code tp} (an array not to be changed), empty if none. Lock-free. */
    FetchSession[] sessionsOf(TopicPartition tp) {
        return byPartition.getOrDefault(tp, NONE);
    }
}
