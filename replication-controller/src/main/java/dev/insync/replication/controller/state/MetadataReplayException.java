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

package dev.insync.replication.controller.state;

/**
 * A record that does not fit the state it is replayed on (a broker epoch that is not its offset,
 * an unknown partition, a partition epoch that does not follow, an offset gap ...): the log is
 * not one this controller wrote, or it is damaged. The message names the offset. The state that
 * threw must not be used any more.
 */
public final class MetadataReplayException extends RuntimeException {

    /** @param message names the offset and what is wrong */
    public MetadataReplayException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @param message names the offset and what is wrong */
    public MetadataReplayException(String message) {
        super(message);
    }
}
