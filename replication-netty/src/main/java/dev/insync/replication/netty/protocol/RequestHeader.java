package dev.insync.replication.netty.protocol;

/**
 * What precedes every request body (NET-1): api key int16, api version int16, correlation id int32,
 * client id (nullable string, at most {@link Limits#CLIENT_ID_MAX_BYTES}).
 */
public record RequestHeader(short apiKey, short apiVersion, int correlationId, String clientId) {

    /** Bytes of the header without the client id's characters. */
    public static final int MIN_SIZE = 2 + 2 + 4 + 2;

    public static RequestHeader read(WireReader in) {
        short key = in.int16("request header api key");
        short version = in.int16("request header api version");
        int correlationId = in.int32("request header correlation id");
        String clientId = in.nullableString("request header client id", Limits.CLIENT_ID_MAX_BYTES);
        return new RequestHeader(key, version, correlationId, clientId);
    }

    public void write(WireWriter out) {
        out.int16(apiKey).int16(apiVersion).int32(correlationId)
                .nullableString(clientId, Limits.CLIENT_ID_MAX_BYTES, "client id");
    }
}
