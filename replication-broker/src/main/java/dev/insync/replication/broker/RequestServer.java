package dev.insync.replication.broker;

/**
 * The server half of an {@link InsyncBroker}'s network binding: where the broker exposes its request
 * handlers. The broker calls {@link #serve} once, when it can serve (its log directories are open,
 * it is registered, and its initial metadata load is applied, as a KRaft broker enables request
 * processing once it has caught up), and closes the returned handle when it stops. The testkit binds
 * the handlers on its in-memory network; replication-netty registers them with its server.
 */
@FunctionalInterface
public interface RequestServer {

    /** Serves nothing: the embedder calls {@link InsyncBroker#requestHandlers()} from its own server. */
    RequestServer NONE = handlers -> () -> { };

    /**
     * Starts exposing {@code handlers} to clients and other brokers.
     *
     * @return what stops exposing them (called once, when the broker stops)
     * @throws RuntimeException if the handlers cannot be served; the broker then fails to start
     */
    AutoCloseable serve(BrokerRequestHandlers handlers);
}
