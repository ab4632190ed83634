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

package dev.insync.replication.core;

import org.quicktheories.core.Gen;

import java.util.ArrayList;
import java.util.List;

import static org.quicktheories.generators.SourceDSL.integers;

/**
 * Action sequences for stateful QuickTheories properties (a copy lives in each module's tests, which
 * share no test code). A plain QuickTheories list shrinks only by cutting its tail, so the action
 * that breaks a model, usually the last, would be cut with it. Here every action carries a keep draw
 * that is non-zero in 1023 of 1024 generated actions and shrinks towards 0, which drops just that
 * action: a failing sequence shrinks by removing actions anywhere, the others keeping their draws.
 */
public final class ActionSequences {

    /** Keep draws range over 0..KEEP_RANGE; 0 drops the action. */
    private static final int KEEP_RANGE = 1023;

    private ActionSequences() {
    }

    /** Sequences of {@code minSize} to {@code maxSize} actions. */
    public static <T> Gen<List<T>> of(Gen<T> action, int minSize, int maxSize) {
        return of(action, integers().between(minSize, maxSize), minSize);
    }

    /** Sequences of {@code sizes} actions, never shrunk below {@code minSize}. */
    public static <T> Gen<List<T>> of(Gen<T> action, Gen<Integer> sizes, int minSize) {
        Gen<Integer> keep = integers().between(0, KEEP_RANGE);
        Gen<List<T>> gen = in -> {
            int size = sizes.generate(in);
            List<T> out = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                boolean kept = keep.generate(in) != 0;
                T next = action.generate(in); // drawn even when dropped, so later actions keep their draws
                if (kept || out.size() + (size - i) <= minSize) {
                    out.add(next);
                }
            }
            return out;
        };
        return gen.describedAs(List::toString);
    }
}
