package dev.insync.replication.netty.client;

import dev.insync.replication.netty.protocol.ErrorCodes;

/**
 * A request the server refused as a whole: the response header carried a non-zero error code
 * (UNSUPPORTED_VERSION, CLUSTER_AUTHORIZATION_FAILED, UNKNOWN_SERVER_ERROR, ...). The connection is fine.
 */
public final class RequestFailedException extends RuntimeException {

    private final short errorCode;

    public RequestFailedException(String apiName, String destination, short errorCode) {
        super(apiName + " to " + destination + " failed: " + ErrorCodes.name(errorCode));
        this.errorCode = errorCode;
    }

    /** The header's error code. */
    public short errorCode() {
        return errorCode;
    }
}
