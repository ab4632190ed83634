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

package dev.insync.replication.testkit.cluster;

/** Where a broker of an {@link InMemoryCluster} is in its life, as a process would be. */
public enum BrokerStatus {
    /** Started and serving. */
    RUNNING,
    /** SIGSTOP: alive, its memory intact, but nothing of it runs until resumed. */
    PAUSED,
    /** Not running: never started, killed, lost power or shut down; only its files remain. */
    DOWN
}
