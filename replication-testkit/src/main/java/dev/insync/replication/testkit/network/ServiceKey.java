package dev.insync.replication.testkit.network;

import java.util.Objects;

/**
 * A typed request/response kind on the {@link InMemoryNetwork}: a receiving node binds a handler
 * per key, and a sender names the key. The name also labels the delivery events in the trace.
 *
 * @param name         e.g. {@code "fetch"}; non-blank
 * @param requestType  the request class
 * @param responseType the response class
 * @param <Q>          request type
 * @param <R>          response type
 */
public record ServiceKey<Q, R>(String name, Class<Q> requestType, Class<R> responseType) {

    /** Validates the name. */
    public ServiceKey {
        Objects.requireNonNull(requestType, "requestType");
        Objects.requireNonNull(responseType, "responseType");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("Service key needs a name (request " + requestType.getSimpleName() + ")");
        }
    }

    /** Creates a key. */
    public static <Q, R> ServiceKey<Q, R> of(String name, Class<Q> requestType, Class<R> responseType) {
        return new ServiceKey<>(name, requestType, responseType);
    }
}
