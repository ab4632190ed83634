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

package dev.insync.replication.core.fetcher;

import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The follower side of one fetcher's fetch session with its leader (Kafka's {@code FetchSessionHandler},
 * KIP-227, FET-7): which kind of fetch to send next, what an incremental fetch must carry, and what a
 * response does to the session.
 *
 * <p>The first fetch is full and asks for a session ({@link FetchRequest#INITIAL_EPOCH}); once the
 * leader answers with a session id, each fetch is incremental: it carries only the partitions new to
 * the session or whose data (fetch offset, log start offset, epochs, max bytes) changed, and, as
 * forgotten, those that left it (removed, not ready, failed). Any error (a session error, any
 * request-level error, a lost answer, a broken connection), an answer that does not fit the
 * session, or a new broker epoch of this follower makes the next fetch full again, closing the old
 * session on the leader. With sessions off every fetch is full and sessionless.
 *
 * <p>Not thread-safe: used under its fetcher's monitor.
 */
final class FetchSessionHandler {

    private final int leaderId;
    private final boolean enabled;
    private int sessionId = FetchRequest.NO_SESSION_ID;
    /** The epoch of the next fetch: {@link FetchRequest#INITIAL_EPOCH} while it is to be full. */
    private int nextEpoch = FetchRequest.INITIAL_EPOCH;
    /** This follower's broker epoch when the session was opened. */
    private long sessionBrokerEpoch;
    /** What the leader's session holds for each partition (the data last sent), in session order. */
    private final Map<TopicPartition, Slot> session = new LinkedHashMap<>();
    /** The full request whose partitions {@link #session} holds (a full request may be sent again as it is). */
    private FetchRequest sessionFullRequest;

    private static final class Slot {
        FetchRequest.PartitionData data;

        Slot(FetchRequest.PartitionData data) {
            this.data = data;
        }
    }

    FetchSessionHandler(int leaderId, boolean enabled) {
        this.leaderId = leaderId;
        this.enabled = enabled;
    }

    /**
     * Whether the next fetch, sent by this follower in broker epoch {@code brokerEpoch}, is incremental;
     * a broker epoch other than the session's resets the session first (the leader would refuse it).
     */
    boolean nextIsIncremental(long brokerEpoch) {
        if (enabled && sessionId != FetchRequest.NO_SESSION_ID && brokerEpoch != sessionBrokerEpoch) {
            reset();
        }
        return enabled && sessionId != FetchRequest.NO_SESSION_ID && nextEpoch > FetchRequest.INITIAL_EPOCH;
    }

    /** The session id a full fetch carries: the session to close and replace, or none. */
    int fullFetchSessionId() {
        return enabled ? sessionId : FetchRequest.NO_SESSION_ID;
    }

    /** The epoch a full fetch carries: opening a session, or none when sessions are off. */
    int fullFetchEpoch() {
        return enabled ? FetchRequest.INITIAL_EPOCH : FetchRequest.FINAL_EPOCH;
    }

    /** A full fetch was sent in broker epoch {@code brokerEpoch}: if the leader opens a session, it holds exactly its partitions. */
    void fullFetchSent(FetchRequest request, long brokerEpoch) {
        if (!enabled || request == sessionFullRequest) {
            return;
        }
        session.clear();
        for (int i = 0; i < request.partitionCount(); i++) {
            session.put(request.topicPartition(i), new Slot(request.partitionData(i)));
        }
        sessionFullRequest = request;
        sessionBrokerEpoch = brokerEpoch;
    }

    /**
     * Starts an incremental fetch: each partition whose fetch data may have changed is
     * {@link Incremental#add added}, each that left or is not ready is {@link Incremental#forget
     * forgotten}, then {@link Incremental#forgotten} is called once; the partitions of the session
     * neither added nor forgotten are fetched again with the data the session holds.
     */
    Incremental incremental() {
        if (!(enabled && sessionId != FetchRequest.NO_SESSION_ID && nextEpoch > FetchRequest.INITIAL_EPOCH)) {
            throw new IllegalStateException("Fetch session with leader " + leaderId + " is not open; the next fetch is full");
        }
        return new Incremental();
    }

    /** One incremental fetch being built. */
    final class Incremental {
        private final List<TopicPartition> forgotten = new ArrayList<>();

        private Incremental() {
        }

        /**
         * {@code tp} is to be fetched with {@code data}: whether the fetch must carry it (it is new to
         * the session, or its data changed); the session now holds that data.
         */
        boolean add(TopicPartition tp, FetchRequest.PartitionData data) {
            Slot slot = session.get(tp);
            if (slot == null) {
                session.put(tp, new Slot(data));
                return true;
            }
            if (slot.data == data || slot.data.equals(data)) {
                return false;
            }
            slot.data = data;
            return true;
        }

        /** {@code tp} leaves the session (removed, not ready, failed), if it is in it. */
        void forget(TopicPartition tp) {
            if (session.remove(tp) != null) {
                forgotten.add(tp);
            }
        }

        /** The partitions forgotten by this fetch; call once, after every add and forget. */
        List<TopicPartition> forgotten() {
            if (!forgotten.isEmpty()) {
                sessionFullRequest = null;
            }
            return List.copyOf(forgotten);
        }

        /** The session id and epoch this fetch carries. */
        int sessionId() {
            return sessionId;
        }

        int epoch() {
            return nextEpoch;
        }
    }

    /**
     * Applies the leader's answer to {@code request} to the session. Returns whether its partitions
     * are to be applied: false for a request-level error (a session error included) and for an
     * answer that does not fit the session (then the next fetch is full).
     */
    boolean handleResponse(FetchRequest request, FetchResponse response) {
        if (!enabled) {
            return response.error() == Errors.NONE;
        }
        if (response.error() == Errors.FETCH_SESSION_ID_NOT_FOUND) {
            sessionId = FetchRequest.NO_SESSION_ID; // nothing left to close on the leader
            reset();
            return false;
        }
        if (response.error() != Errors.NONE) {
            reset();
            return false;
        }
        if (request.isFull()) {
            sessionId = response.sessionId();
            nextEpoch = sessionId == FetchRequest.NO_SESSION_ID ? FetchRequest.INITIAL_EPOCH : 1;
            return true;
        }
        if (request.sessionId() != sessionId || request.sessionEpoch() != nextEpoch
                || response.sessionId() != sessionId || !holdsAll(response)) {
            reset();
            return false;
        }
        nextEpoch = FetchRequest.nextEpoch(nextEpoch);
        return true;
    }

    private boolean holdsAll(FetchResponse response) {
        for (int i = 0; i < response.partitionCount(); i++) {
            if (!session.containsKey(response.topicPartition(i))) {
                return false;
            }
        }
        return true;
    }

    /** The fetch failed (no answer, a broken connection): the next one is full and replaces the session. */
    void handleError() {
        reset();
    }

    private void reset() {
        nextEpoch = FetchRequest.INITIAL_EPOCH;
        session.clear();
        sessionFullRequest = null;
    }

    /** What the leader's session holds for {@code tp} (what was last sent), or null. */
    FetchRequest.PartitionData sessionData(TopicPartition tp) {
        Slot slot = session.get(tp);
        return slot == null ? null : slot.data;
    }

    /** How many partitions the leader's session holds. */
    int sessionPartitionCount() {
        return session.size();
    }

    /** The partitions the leader's session holds, in session order. */
    Set<TopicPartition> sessionPartitions() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(session.keySet()));
    }

    /** The open session's id, {@link FetchRequest#NO_SESSION_ID} if none. */
    int sessionId() {
        return sessionId;
    }

    @Override
    public String toString() {
        return "FetchSessionHandler(leader " + leaderId + ", session " + sessionId + ", next epoch " + nextEpoch + ")";
    }
}
