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

import java.util.ArrayList;
import java.util.List;

/** ApiVersions response v0: array of apiKey int16, minVersion int16, maxVersion int16. */
public final class ApiVersionsResponseCodec implements MessageCodec<ApiVersionsResponse> {

    public static final ApiVersionsResponseCodec INSTANCE = new ApiVersionsResponseCodec();

    private ApiVersionsResponseCodec() {
    }

    @Override
    public void write(ApiVersionsResponse r, short version, WireWriter out) {
        out.arrayLength(r.apis().size());
        r.apis().forEach(a -> out.int16(a.apiKey()).int16(a.minVersion()).int16(a.maxVersion()));
    }

    @Override
    public ApiVersionsResponse read(short version, WireReader in) {
        int n = in.arrayLength("api versions", 6);
        List<ApiVersionsResponse.ApiVersion> apis = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            apis.add(new ApiVersionsResponse.ApiVersion(in.int16("api key"), in.int16("min version"),
                    in.int16("max version")));
        }
        return new ApiVersionsResponse(apis);
    }
}
