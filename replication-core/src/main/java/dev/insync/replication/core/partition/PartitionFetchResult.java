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

package dev.insync.replication.core.partition;

import dev.insync.replication.core.rpc.FetchResponse;

/**
 * One partition's answer to a fetch on the leader (FET-6), plus what the caller must do next.
 *
 * @param data                    the response for this partition
 * @param highWatermarkIncreased  the fetch raised the HW: wake the purgatories (PRO-4)
 */
public record PartitionFetchResult(FetchResponse.PartitionData data, boolean highWatermarkIncreased) {
}
