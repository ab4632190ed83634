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

package dev.insync.replication.netty.protocol;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The apis a server serves or a client speaks, by key. Immutable; {@link #with} makes a larger
 * registry (how later modules add their request types to {@link Apis#DEFAULT}).
 */
public final class ApiRegistry {

    private final Map<Short, Api<?, ?>> byKey;

    private ApiRegistry(Map<Short, Api<?, ?>> byKey) {
        this.byKey = Collections.unmodifiableMap(byKey);
    }

    /** A registry of these apis. @throws IllegalArgumentException if two share a key */
    public static ApiRegistry of(Api<?, ?>... apis) {
        return new ApiRegistry(index(List.of(apis)));
    }

    /** This registry plus {@code more}. @throws IllegalArgumentException if a key is taken */
    public ApiRegistry with(Api<?, ?>... more) {
        List<Api<?, ?>> all = new ArrayList<>(byKey.values());
        all.addAll(List.of(more));
        return new ApiRegistry(index(all));
    }

    private static Map<Short, Api<?, ?>> index(Collection<Api<?, ?>> apis) {
        Map<Short, Api<?, ?>> m = new TreeMap<>();
        for (Api<?, ?> api : apis) {
            Api<?, ?> previous = m.putIfAbsent(api.key(), api);
            if (previous != null) {
                throw new IllegalArgumentException("Api key " + api.key() + " is both " + previous.name() + " and "
                        + api.name());
            }
        }
        return m;
    }

    /** The api with this key, if registered. */
    public Optional<Api<?, ?>> api(short key) {
        return Optional.ofNullable(byKey.get(key));
    }

    /** Every api, by key. */
    public Collection<Api<?, ?>> apis() {
        return byKey.values();
    }

    @Override
    public String toString() {
        return "ApiRegistry" + byKey.values();
    }
}
