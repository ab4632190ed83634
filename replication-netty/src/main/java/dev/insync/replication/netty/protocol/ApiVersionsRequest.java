package dev.insync.replication.netty.protocol;

/** An ApiVersions request: no fields. Version 0 is served forever, so a client can always ask. */
public record ApiVersionsRequest() {
}
