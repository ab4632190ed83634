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

package dev.insync.replication.testkit.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code /proc/<pid>/stat} (or a thread's {@code /proc/<pid>/task/<tid>/stat}) says about a
 * process or thread: its name, scheduler state and the CPU time it has used (user plus system), as
 * proc(5) defines the fields.
 *
 * @param pid         the process (or thread) id
 * @param command     field 2 without its parentheses: the name, at most 15 characters (a JVM thread's name, cut)
 * @param state       field 3: {@code R} running, {@code S} sleeping, {@code T} stopped by a signal, {@code Z} zombie, ...
 * @param userTicks   field 14, {@code utime}, in clock ticks
 * @param systemTicks field 15, {@code stime}, in clock ticks
 */
public record ProcStat(long pid, String command, char state, long userTicks, long systemTicks) {

    /**
     * Clock ticks per second of {@code utime}/{@code stime}: the kernel reports them in USER_HZ,
     * which is 100 on every Linux architecture the JDK runs on ({@code getconf CLK_TCK}).
     */
    static final int TICKS_PER_SECOND = 100;

    /** Reads the process's stat line; an {@link IOException} if there is no such process (or no /proc). */
    static ProcStat read(long pid) throws IOException {
        Path file = Path.of("/proc", Long.toString(pid), "stat");
        return parse(pid, Files.readString(file, StandardCharsets.ISO_8859_1));
    }

    /**
     * The stat of every thread of process {@code pid} under {@code procRoot} (laid out as
     * {@code /proc}); a thread that ends while they are read is left out. A {@link NoSuchFileException}
     * if there is no such process.
     */
    public static List<ProcStat> threads(Path procRoot, long pid) throws IOException {
        List<ProcStat> threads = new ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(procRoot.resolve(Long.toString(pid)).resolve("task"))) {
            for (Path task : tasks) {
                String line;
                try {
                    line = Files.readString(task.resolve("stat"), StandardCharsets.ISO_8859_1);
                } catch (NoSuchFileException ended) {
                    continue;
                }
                threads.add(parse(Long.parseLong(task.getFileName().toString()), line));
            }
        }
        return threads;
    }

    /**
     * Parses a stat line. Field 2 is the command name in parentheses and may itself contain spaces
     * and parentheses, so the fields after it are counted from the last {@code ')'}.
     */
    static ProcStat parse(long pid, String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new IllegalArgumentException("/proc/" + pid + "/stat has no command name: " + line);
        }
        String[] rest = line.substring(close + 1).trim().split(" +");
        // rest[0] is field 3 (state), so field n is rest[n - 3].
        if (rest.length < 13 || rest[0].length() != 1) {
            throw new IllegalArgumentException("/proc/" + pid + "/stat has too few fields: " + line);
        }
        return new ProcStat(pid, line.substring(open + 1, close), rest[0].charAt(0), Long.parseLong(rest[11]),
                Long.parseLong(rest[12]));
    }

    /** User plus system CPU time, in seconds. */
    public double cpuSeconds() {
        return (userTicks + systemTicks) / (double) TICKS_PER_SECOND;
    }

    /** Stopped by SIGSTOP (or a tracer). */
    boolean stopped() {
        return state == 'T' || state == 't';
    }
}
