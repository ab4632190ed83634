package dev.insync.replication.netty.protocol;

/** ApiVersions request v0: an empty body. */
public final class ApiVersionsRequestCodec implements MessageCodec<ApiVersionsRequest> {

    public static final ApiVersionsRequestCodec INSTANCE = new ApiVersionsRequestCodec();

    private ApiVersionsRequestCodec() {
    }

    @Override
    public void write(ApiVersionsRequest r, short version, WireWriter out) {
    }

    @Override
    public ApiVersionsRequest read(short version, WireReader in) {
        return new ApiVersionsRequest();
    }
}
