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

/**
 * Where one partition stands in its fetcher (FOL-2, FOL-6, FOL-7): exactly one of these.
 */
public sealed interface FetchState {

    /** Included in the next fetch. */
    record Fetching() implements FetchState {
    }

    /** FOL-7: the log has no epoch information and is first truncated to its HW. */
    record Truncating() implements FetchState {
    }

    /** FOL-6: a retriable error; not fetched before {@code untilMs}. */
    record Delayed(long untilMs) implements FetchState {
    }

    /** FOL-6: fenced in its current epoch, or a storage/unexpected error; not fetched until re-added. */
    record Failed(String reason) implements FetchState {
    }

    /** The shared {@link Fetching} value. */
    FetchState FETCHING = new Fetching();
    /** The shared {@link Truncating} value. */
    FetchState TRUNCATING = new Truncating();
}
