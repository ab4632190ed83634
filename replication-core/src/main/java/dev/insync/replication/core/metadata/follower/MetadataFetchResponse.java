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

package dev.insync.replication.core.metadata.follower;

import dev.insync.replication.core.metadata.MetadataDelta;

import java.util.List;
import java.util.Optional;

/**
 * The answer to a {@link MetadataFetchRequest}: the committed deltas right after
 * {@code afterOffset}, one per metadata batch, in offset order and with no batch left out; or,
 * when the log after {@code afterOffset} is gone, an image to load first (the deltas then follow
 * the image). Empty when nothing newer was committed within the wait.
 *
 * @param afterOffset the request's offset, echoed so that the broker can drop a stale answer
 * @param image       a full image to load before the deltas, if the log needed is gone
 * @param deltas      deltas after {@code afterOffset} (or after the image), strictly increasing
 */
public record MetadataFetchResponse(long afterOffset, Optional<MetadataImage> image, List<MetadataDelta> deltas) {

    /** Validates; immutable copy. */
    public MetadataFetchResponse {
        deltas = List.copyOf(deltas);
        long previous = image.map(MetadataImage::offset).orElse(afterOffset);
        for (MetadataDelta delta : deltas) {
            if (delta.offset() <= previous) {
                throw new IllegalArgumentException("Metadata deltas must follow offset " + previous + " strictly, got "
                        + delta.offset());
            }
            previous = delta.offset();
        }
    }

    /** The offset the broker has after applying this answer. */
    public long endOffset() {
        return deltas.isEmpty() ? image.map(MetadataImage::offset).orElse(afterOffset) : deltas.get(deltas.size() - 1).offset();
    }
}
