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

package dev.insync.replication.controller.record;

/**
 * The type byte of every encoded metadata record and the newest version this build writes and
 * reads (CTL-2). Ids are never reused; a new field means a new version, and a reader that meets a
 * type or version it does not know fails naming the offset instead of skipping the record.
 * docs/metadata-format.md describes every version byte by byte.
 */
public enum MetadataRecordType {
    REGISTER_BROKER(1, 1), // 1: the broker's endpoints (LDR-4)
    FENCE_BROKER(2, 0),
    UNFENCE_BROKER(3, 0),
    BROKER_SHUTDOWN(4, 0),
    REPLICAS_OFFLINE(5, 0),
    TOPIC(6, 1), // 1: the topic id
    PARTITION(7, 0),
    PARTITION_CHANGE(8, 0),
    CONFIG(9, 0),
    REMOVE_TOPIC(10, 0);

    private static final MetadataRecordType[] BY_ID = new MetadataRecordType[16];

    static {
        for (MetadataRecordType type : values()) {
            BY_ID[type.id] = type;
        }
    }

    private final byte id;
    private final byte latestVersion;

    MetadataRecordType(int id, int latestVersion) {
        this.id = (byte) id;
        this.latestVersion = (byte) latestVersion;
    }

    /** The type byte on the wire. */
    public byte id() {
        return id;
    }

    /** The version this build writes; it reads versions 0 to this one. */
    public byte latestVersion() {
        return latestVersion;
    }

    /** The type with {@code id}, or null if this build does not know it. */
    public static MetadataRecordType fromId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}
