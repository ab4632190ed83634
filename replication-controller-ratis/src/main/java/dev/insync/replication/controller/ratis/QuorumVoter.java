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

package dev.insync.replication.controller.ratis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One voter of the controller quorum, as {@code controller.quorum.voters} names it:
 * {@code id@host:port}.
 *
 * @param nodeId the controller's {@code node.id}
 * @param host   host or address its Raft RPC listens on
 * @param port   its Raft RPC port
 */
public record QuorumVoter(int nodeId, String host, int port) {

    /** Validates. */
    public QuorumVoter {
        if (nodeId < 0) {
            throw new IllegalArgumentException("Controller node id must be >= 0, got " + nodeId);
        }
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("Controller node " + nodeId + " has no host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("Controller node " + nodeId + " has invalid port " + port);
        }
    }

    /** {@code host:port}. */
    public String address() {
        return host + ":" + port;
    }

    @Override
    public String toString() {
        return nodeId + "@" + address();
    }

    /**
     * Parses {@code controller.quorum.voters}: a comma-separated list of {@code id@host:port}.
     *
     * @throws IllegalArgumentException naming the entry that is wrong, a repeated id, or an empty list
     */
    public static List<QuorumVoter> parseVoters(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(RatisControllerConfig.CONTROLLER_QUORUM_VOTERS + " is empty");
        }
        List<QuorumVoter> voters = new ArrayList<>();
        Set<Integer> ids = new HashSet<>();
        for (String entry : value.split(",")) {
            String e = entry.trim();
            int at = e.indexOf('@');
            if (at <= 0) {
                throw new IllegalArgumentException(RatisControllerConfig.CONTROLLER_QUORUM_VOTERS + " entry '" + e
                        + "' is not id@host:port");
            }
            int id;
            try {
                id = Integer.parseInt(e.substring(0, at));
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException(RatisControllerConfig.CONTROLLER_QUORUM_VOTERS + " entry '" + e
                        + "' has a non-numeric id");
            }
            String[] hostPort = parseHostPort(e.substring(at + 1), RatisControllerConfig.CONTROLLER_QUORUM_VOTERS);
            QuorumVoter voter = new QuorumVoter(id, hostPort[0], Integer.parseInt(hostPort[1]));
            if (!ids.add(id)) {
                throw new IllegalArgumentException(RatisControllerConfig.CONTROLLER_QUORUM_VOTERS + " names node " + id
                        + " twice");
            }
            voters.add(voter);
        }
        return List.copyOf(voters);
    }

    /** Splits {@code host:port}, checking the port is a number; {@code what} names the property in errors. */
    static String[] parseHostPort(String value, String what) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new IllegalArgumentException(what + " entry '" + value + "' is not host:port");
        }
        String port = value.substring(colon + 1);
        try {
            Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " entry '" + value + "' has a non-numeric port");
        }
        return new String[]{value.substring(0, colon), port};
    }
}
