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

package dev.insync.replication.bench.harness;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Another replication system measured in the same run under the same load (found with
 * {@link java.util.ServiceLoader}; the Ratis peer is compiled only with the Maven profile
 * {@code -Ppeers}, so ordinary builds neither download nor run it).
 */
public interface PeerBenchmark {

    /** Short name used as the metric prefix, e.g. {@code ratis}. */
    String name();

    /**
     * Measures with {@code fsync} on or off: adds {@code peer.<name>.<fsync>.records_per_s} (with
     * {@code window} messages in flight) and {@code peer.<name>.<fsync>.latency_p50_us} etc. (one in
     * flight) to {@code out}.
     */
    void measure(BenchOptions options, boolean fsync, Path workDir, Measurements out, Consumer<String> progress)
            throws Exception;
}
