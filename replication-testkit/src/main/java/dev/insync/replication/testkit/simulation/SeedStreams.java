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

package dev.insync.replication.testkit.simulation;

import java.util.SplittableRandom;

/**
 * Independent random streams for one simulation seed, one per {@link Component}.
 *
 * <p>Why not {@code new SplittableRandom(seed)} or {@code seed * GAMMA + c}: a {@link SplittableRandom}
 * built from {@code x} draws {@code mix(x + GAMMA)}, {@code mix(x + 2 GAMMA)}, ..., so any two seeds
 * whose starting states differ by a multiple of {@code GAMMA} give the same stream shifted by some
 * draws. Multiplying the seed by {@code GAMMA} made exactly neighbouring seeds such a pair: seed
 * {@code s + 1} replayed seed {@code s} one draw later. Here the starting state is the SplitMix64
 * finalizer of the seed mixed with the component's salt, and the stream is {@link SplittableRandom#split()}
 * off it, which also draws its own gamma: neighbouring seeds, and the components of one seed, share
 * neither starting state nor increment.
 */
public final class SeedStreams {

    /** What a stream is for; each component of a run draws only from its own stream. */
    public enum Component {
        /** The per-seed settings (partitions, segment size, min ISR, ...): see {@link SeedProfile}. */
        SETTINGS(0x5E771265L),
        /** Producers' and consumers' choices. */
        WORKLOAD(0x3A7C1D9BL),
        /** When faults are attempted, which kind, which victim. */
        FAULTS(0x6F4E22D1L),
        /** The cluster's event loop: link delays, losses, torn writes of a power loss. */
        EVENT_LOOP(0x1B873593L);

        private final long salt;

        Component(long salt) {
            this.salt = salt;
        }
    }

    private SeedStreams() {
    }

    /** The stream of {@code component} for {@code seed}. */
    public static SplittableRandom stream(long seed, Component component) {
        return new SplittableRandom(seedOf(seed, component)).split();
    }

    /**
     * A 64-bit seed for {@code component} of {@code seed}, for APIs that take a seed rather than a
     * generator (the cluster's event loop).
     */
    public static long seedOf(long seed, Component component) {
        return mix64(mix64(seed) ^ mix64(component.salt));
    }

    /** The SplitMix64 finalizer (Steele, Lea and Flood's variant 13): a bijection with full avalanche. */
    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
