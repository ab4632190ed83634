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

package dev.insync.replication.netty.protocol;

import java.util.List;

/** The apis a server serves, each with its version range. */
public record ApiVersionsResponse(List<ApiVersion> apis) {

    public ApiVersionsResponse {
        apis = List.copyOf(apis);
    }

    /** One api's key and served versions. */
    public record ApiVersion(short apiKey, short minVersion, short maxVersion) {
    }

    /** What a server with this registry serves. */
    public static ApiVersionsResponse of(ApiRegistry registry) {
        return new ApiVersionsResponse(registry.apis().stream()
                .map(a -> new ApiVersion(a.key(), a.minVersion(), a.maxVersion())).toList());
    }
}
