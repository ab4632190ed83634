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

package dev.insync.replication.bench.processes;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Starts a {@link ProcessBenchTarget}; found with {@link java.util.ServiceLoader} (register the
 * implementation in {@code META-INF/services}). The Kafka target is compiled only by the
 * {@code -Ppeers} build.
 */
public interface ProcessBenchTargetFactory {

    /** The name {@code --targets} selects it by, also the metric prefix: {@code process.<name>.}. */
    String name();

    /**
     * Starts a fresh cluster under {@code workDir} (a new, empty directory) and returns once it
     * serves clients, within {@link ProcessBenchSettings#startTimeout()}. On failure nothing it
     * started is left running.
     */
    ProcessBenchTarget start(Path workDir, ProcessBenchSettings settings, Consumer<String> progress) throws Exception;
}
