package dev.insync.replication.netty.protocol;

/** The protocol's explicit bounds on strings (see docs/protocol.md). Encoders refuse to exceed them too. */
public final class Limits {

    /** Kafka's longest topic name. */
    public static final int TOPIC_NAME_MAX_BYTES = 249;
    /** The request header's client id. */
    public static final int CLIENT_ID_MAX_BYTES = 256;
    /** A broker's host name in Metadata (the DNS limit). */
    public static final int HOST_MAX_BYTES = 255;

    private Limits() {
    }
}
