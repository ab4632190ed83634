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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** Reading the compiler threads' CPU from a {@code /proc} laid out in a directory. */
class ServerJitTest {

    @TempDir
    Path proc;

    private void thread(long pid, long tid, String comm, long utime, long stime) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(pid + "/task/" + tid));
        // The fields of proc(5) up to stime; comm may hold spaces and parentheses.
        Files.writeString(dir.resolve("stat"), tid + " (" + comm + ") S 1 1 1 0 -1 4194560 100 0 0 0 " + utime + " "
                + stime + " 0 0 20 0 30 0 100 0 0\n");
    }

    @Test
    void compilerCpuIsTheUserAndSystemTimeOfTheC1AndC2ThreadsOfEveryProcess() throws IOException {
        thread(42, 42, "java", 5_000, 500);
        thread(42, 43, "C2 CompilerThre", 150, 50);
        thread(42, 44, "C1 CompilerThre", 10, 0);
        thread(42, 45, "odd) (C2 CompilerThre", 7_000, 0);
        thread(77, 78, "C2 CompilerThre", 40, 0);
        thread(77, 79, "node-1-network-", 9_000, 100);
        ServerJit jit = new ServerJit(proc);
        assertThat(jit.compilerCpuSeconds(List.of(42L, 77L))).as("the first reading is the origin").isZero();

        thread(42, 43, "C2 CompilerThre", 250, 50);
        thread(42, 45, "odd) (C2 CompilerThre", 9_000, 0);
        thread(77, 79, "node-1-network-", 19_000, 100);
        thread(77, 78, "C2 CompilerThre", 45, 5);

        assertThat(jit.compilerCpuSeconds(List.of(42L, 77L))).isCloseTo(1.1, within(1e-9));
        assertThat(jit.compilerCpuSeconds(List.of(42L, 1234L))).as("a process that is not there").isNaN();
        assertThat(jit.compilerCpuSeconds(List.of())).isNaN();
    }

    @Test
    void compilerThreadsThatEndOrBeginDoNotMakeTheTotalFall() throws IOException {
        thread(42, 43, "C2 CompilerThre", 100, 0);
        thread(42, 44, "C2 CompilerThre", 500, 0);
        ServerJit jit = new ServerJit(proc);
        jit.compilerCpuSeconds(List.of(42L));

        // HotSpot ends an idle compiler thread and starts another when compiling picks up again.
        Files.delete(proc.resolve("42/task/44/stat"));
        Files.delete(proc.resolve("42/task/44"));
        thread(42, 46, "C1 CompilerThre", 30, 0);
        thread(42, 43, "C2 CompilerThre", 120, 0);

        assertThat(jit.compilerCpuSeconds(List.of(42L))).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void aMalformedStatLineIsAnErrorNamingTheThread() throws IOException {
        Path dir = Files.createDirectories(proc.resolve("5/task/6"));
        Files.writeString(dir.resolve("stat"), "6 C2 CompilerThread0 S 1\n");

        assertThatThrownBy(() -> new ServerJit(proc).compilerCpuSeconds(List.of(5L)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/proc/6/stat");
    }
}
