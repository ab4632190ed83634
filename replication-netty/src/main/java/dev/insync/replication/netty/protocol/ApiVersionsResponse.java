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
