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

package dev.insync.replication.controller;

import dev.insync.replication.controller.state.BrokerEntry;
import dev.insync.replication.controller.state.ControllerView;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * CTL-3: the active controller's in-memory liveness of brokers. Heartbeats are not written to the
 * metadata log; this class remembers when each broker incarnation was last heard from, and which
 * unfenced brokers have gone {@code broker.session.timeout.ms} without a heartbeat (the controller
 * then writes a fence record). A newly active controller {@link #activate activates} it with every
 * known broker heard from "now": each gets a full session timeout before it can be fenced, as in
 * KRaft. Not thread-safe: the controller's executor owns it.
 */
public final class BrokerHeartbeatManager {

    private record Contact(long brokerEpoch, long lastContactMs, boolean heartbeated) {
    }

    private final long sessionTimeoutMs;
    private final Map<Integer, Contact> contacts = new HashMap<>();

    /** @param sessionTimeoutMs {@code broker.session.timeout.ms} */
    public BrokerHeartbeatManager(long sessionTimeoutMs) {
        if (sessionTimeoutMs <= 0) {
            throw new IllegalArgumentException("Session timeout must be positive, got " + sessionTimeoutMs);
        }
        this.sessionTimeoutMs = sessionTimeoutMs;
    }

    /** CTL-3: a newly active controller treats every known broker as heard from at {@code nowMs}. */
    public void activate(Collection<BrokerEntry> brokers, long nowMs) {
        contacts.clear();
        for (BrokerEntry broker : brokers) {
            contacts.put(broker.brokerId(), new Contact(broker.brokerEpoch(), nowMs, false));
        }
    }

    /** A new incarnation registered at {@code nowMs}; it has not heartbeated yet. */
    public void registered(int brokerId, long brokerEpoch, long nowMs) {
        contacts.put(brokerId, new Contact(brokerEpoch, nowMs, false));
    }

    /** A heartbeat of the current incarnation {@code brokerEpoch} at {@code nowMs}. */
    public void heartbeat(int brokerId, long brokerEpoch, long nowMs) {
        contacts.put(brokerId, new Contact(brokerEpoch, nowMs, true));
    }

    /** Whether this controller saw a heartbeat from incarnation {@code brokerEpoch} of the broker. */
    public boolean hasHeartbeated(int brokerId, long brokerEpoch) {
        Contact c = contacts.get(brokerId);
        return c != null && c.brokerEpoch == brokerEpoch && c.heartbeated;
    }

    /**
     * The unfenced brokers of {@code view} whose session has expired at {@code nowMs} (no contact
     * for at least the session timeout), by broker id.
     */
    public List<BrokerEntry> expired(ControllerView view, long nowMs) {
        List<BrokerEntry> result = new ArrayList<>();
        for (BrokerEntry broker : view.brokers()) {
            if (!broker.fenced() && nowMs >= deadlineMs(broker, nowMs)) {
                result.add(broker);
            }
        }
        return result;
    }

    /** The earliest session expiry among the unfenced brokers of {@code view}, if any. */
    public OptionalLong nextDeadlineMs(ControllerView view, long nowMs) {
        long earliest = Long.MAX_VALUE;
        for (BrokerEntry broker : view.brokers()) {
            if (!broker.fenced()) {
                earliest = Math.min(earliest, deadlineMs(broker, nowMs));
            }
        }
        return earliest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(earliest);
    }

    private long deadlineMs(BrokerEntry broker, long nowMs) {
        Contact c = contacts.get(broker.brokerId());
        if (c == null || c.brokerEpoch != broker.brokerEpoch()) {
            // An incarnation this controller has not heard of yet (registered through another node): from now.
            c = new Contact(broker.brokerEpoch(), nowMs, false);
            contacts.put(broker.brokerId(), c);
        }
        return c.lastContactMs + sessionTimeoutMs;
    }
}
