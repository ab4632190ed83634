/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.insync.replication.log;

/**
 * Error codes on the wire, with Kafka's names, codes and default messages (contract §9). Inside the
 * library errors travel as {@link ApiException}; at a boundary (a response, a produce result) they
 * are one of these values.
 */
public enum Errors {
    UNKNOWN_SERVER_ERROR(-1, "The server experienced an unexpected error when processing the request.", false),
    NONE(0, null, false),
    OFFSET_OUT_OF_RANGE(1, "The requested offset is not within the range of offsets maintained by the server.", false),
    CORRUPT_MESSAGE(2, "This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.", true),
    UNKNOWN_TOPIC_OR_PARTITION(3, "This server does not host this topic-partition.", true),
    NOT_LEADER_OR_FOLLOWER(6, "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.", true),
    REQUEST_TIMED_OUT(7, "The request timed out.", true),
    MESSAGE_TOO_LARGE(10, "The request included a message larger than the max message size the server will accept.", false),
    NETWORK_EXCEPTION(13, "The server disconnected before a response was received.", true),
    RECORD_LIST_TOO_LARGE(18, "The request included message batch larger than the configured segment size on the server.", false),
    NOT_ENOUGH_REPLICAS(19, "Messages are rejected since there are fewer in-sync replicas than required.", true),
    NOT_ENOUGH_REPLICAS_AFTER_APPEND(20, "Messages are written to the log, but to fewer in-sync replicas than required.", true),
    INVALID_REQUIRED_ACKS(21, "Produce request specified an invalid value for required acks.", false),
    NOT_CONTROLLER(41, "This is not the correct controller for this cluster.", true),
    INVALID_REQUEST(42, "This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.", false),
    OPERATION_NOT_ATTEMPTED(55, "The broker did not attempt to execute this operation. This may happen for batched RPCs where some operations in the batch failed, causing the broker to respond without trying the rest.", false),
    KAFKA_STORAGE_ERROR(56, "Disk error when trying to access log file on the disk.", true),
    FETCH_SESSION_ID_NOT_FOUND(70, "The fetch session ID was not found.", true),
    INVALID_FETCH_SESSION_EPOCH(71, "The fetch session epoch is invalid.", true),
    FENCED_LEADER_EPOCH(74, "The leader epoch in the request is older than the epoch on the broker.", true),
    UNKNOWN_LEADER_EPOCH(75, "The leader epoch in the request is newer than the epoch on the broker.", true),
    STALE_BROKER_EPOCH(77, "Broker epoch has changed.", false),
    INVALID_RECORD(87, "This record has failed the validation on broker and hence will be rejected.", false),
    INVALID_UPDATE_VERSION(95, "The given update version was invalid.", false),
    INCONSISTENT_TOPIC_ID(103, "The log's topic ID did not match the topic ID in the request.", true),
    INELIGIBLE_REPLICA(107, "The new ISR contains at least one ineligible replica.", false),
    NEW_LEADER_ELECTED(108, "The AlterPartition request successfully updated the partition state but the leader has changed.", false);

    private final short code;
    private final String message;
    private final boolean retriable;

    Errors(int code, String message, boolean retriable) {
        this.code = (short) code;
        this.message = message;
        this.retriable = retriable;
    }

    /** Kafka's numeric error code. */
    public short code() {
        return code;
    }

    /** Kafka's default message; {@code null} for {@link #NONE}. */
    public String message() {
        return message;
    }

    /** Whether a client may retry the same request and expect it to succeed later. */
    public boolean isRetriable() {
        return retriable;
    }

    /** The error with this code. @throws IllegalArgumentException for an unknown code */
    public static Errors forCode(int code) {
        for (Errors e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        throw new IllegalArgumentException("Unknown error code " + code);
    }

    /** An exception carrying this error and a message that names what it is about. */
    public ApiException exception(String detail) {
        return new ApiException(this, detail);
    }
}
