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

package dev.insync.replication.controller.log;

import java.util.OptionalInt;

/**
 * Who leads the metadata log, and in which epoch (a Raft term). The leader is the active
 * controller; only it may append, and only in its epoch.
 *
 * @param leaderId the leader's node id, empty when there is none
 * @param epoch    the epoch, growing with every change of leadership
 */
public record LeaderAndEpoch(OptionalInt leaderId, int epoch) {

    /** No leader yet. */
    public static final LeaderAndEpoch NONE = new LeaderAndEpoch(OptionalInt.empty(), 0);

    /** Whether {@code nodeId} leads. */
    public boolean isLeader(int nodeId) {
        return leaderId.isPresent() && leaderId.getAsInt() == nodeId;
    }
}
