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
 * Delayed operations and the purgatory that parks them (contract PRO-4, and the waiting part of
 * FET-5): a {@link dev.insync.replication.core.purgatory.DelayedOperationPurgatory} completes
 * operations when someone checks their keys, and a hierarchical timing wheel
 * ({@link dev.insync.replication.core.purgatory.TimingWheelTimer}) expires the rest in O(1) per
 * operation. Nothing here polls or owns a thread: the timer asks the injected
 * {@link dev.insync.replication.core.time.Scheduler} for one wake-up per bucket expiration.
 */
package dev.insync.replication.core.purgatory;
