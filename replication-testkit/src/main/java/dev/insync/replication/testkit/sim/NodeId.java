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

package dev.insync.replication.testkit.sim;

import java.util.Objects;

/**
 * Names a simulated process: a broker, the controller or a client. Every task and timer of the
 * simulation is tagged with one, so that pausing, resuming and killing act on a whole process.
 * Ordered (kind, then id) so that iteration over nodes is deterministic.
 *
 * @param kind "broker", "controller" or "client" (any non-blank name without whitespace)
 * @param id   number within the kind (the broker id for brokers)
 */
public record NodeId(String kind, int id) implements Comparable<NodeId> {

    /** The kind of broker nodes. */
    public static final String BROKER = "broker";
    /** The kind of the controller node. */
    public static final String CONTROLLER_KIND = "controller";
    /** The kind of client nodes. */
    public static final String CLIENT = "client";
    /** The single controller of a cluster. */
    public static final NodeId CONTROLLER = new NodeId(CONTROLLER_KIND, 0);

    /** Validates the name. */
    public NodeId {
        Objects.requireNonNull(kind, "kind");
        if (kind.isEmpty() || hasWhitespace(kind)) {
            throw new IllegalArgumentException("Invalid node kind '" + kind + "' (id " + id + ")");
        }
    }

    /**
     * A plain loop: a node id is made for every in-memory fetch sent (the transport names the leader
     * by id), and a stream over the name's characters was a tenth of a replica fetcher's samples.
     */
    private static boolean hasWhitespace(String kind) {
        for (int i = 0; i < kind.length(); i++) {
            if (Character.isWhitespace(kind.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /** Broker {@code brokerId}. */
    public static NodeId broker(int brokerId) {
        return new NodeId(BROKER, brokerId);
    }

    /** Client number {@code clientId}. */
    public static NodeId client(int clientId) {
        return new NodeId(CLIENT, clientId);
    }

    /** Whether this is a broker. */
    public boolean isBroker() {
        return BROKER.equals(kind);
    }

    @Override
    public int compareTo(NodeId other) {
        int byKind = kind.compareTo(other.kind);
        return byKind != 0 ? byKind : Integer.compare(id, other.id);
    }

    /** {@code broker-1}, {@code controller}, {@code client-0}. */
    @Override
    public String toString() {
        return CONTROLLER_KIND.equals(kind) && id == 0 ? kind : kind + "-" + id;
    }
}
