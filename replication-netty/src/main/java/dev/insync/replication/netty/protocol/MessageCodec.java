package dev.insync.replication.netty.protocol;

/**
 * The body layout of one message type, for every version its {@link Api} supports. {@link #read}
 * consumes exactly the body or throws {@link MalformedFrameException}; it never throws anything else
 * on bad input (runtime checks of record constructors are turned into that exception).
 *
 * @param <T> the message
 */
public interface MessageCodec<T> {

    /** Writes {@code message} as version {@code version}. */
    void write(T message, short version, WireWriter out);

    /** Reads a version-{@code version} body; the caller checks that nothing is left over. */
    T read(short version, WireReader in);
}
