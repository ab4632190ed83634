package dev.insync.replication.log.record;

/**
 * A record header: a string key and an optional byte value.
 *
 * @param key   header key, non-null
 * @param value header value, may be null
 */
public record Header(String key, byte[] value) {
}
