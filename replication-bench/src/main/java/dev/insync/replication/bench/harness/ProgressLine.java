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

import java.io.PrintStream;
import java.util.function.Consumer;

/**
 * A one-line progress display: each step overwrites the previous one ({@code \r}), prefixed with
 * the elapsed time; {@code null} ends the line.
 */
public final class ProgressLine implements Consumer<String> {

    private final PrintStream out;
    private final long startNs = System.nanoTime();
    private int lastLength;

    /** Progress on {@code out}. */
    public ProgressLine(PrintStream out) {
        this.out = out;
    }

    /** Progress on standard error, so standard output carries only the report. */
    public static ProgressLine toStderr() {
        return new ProgressLine(System.err);
    }

    @Override
    public synchronized void accept(String step) {
        if (step == null) {
            out.print("\r" + " ".repeat(lastLength) + "\r");
            out.flush();
            lastLength = 0;
            return;
        }
        String line = String.format("[%4ds] %s", (System.nanoTime() - startNs) / 1_000_000_000L, step);
        out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        out.flush();
        lastLength = line.length();
    }
}
