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

/**
 * The broker side of the metadata stream (CTL-5):
 * {@link dev.insync.replication.core.metadata.follower.MetadataFollower} follows the committed
 * metadata log for one broker through a
 * {@link dev.insync.replication.core.metadata.follower.MetadataChannel} and applies it to that
 * broker's {@code ReplicaManager}: in offset order, once, from its last offset, loading an
 * {@link dev.insync.replication.core.metadata.follower.MetadataImage} when the log it needs is
 * gone, and merging the initial load.
 */
package dev.insync.replication.core.metadata.follower;
