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

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One JVM to start: {@code java <jvmOptions> -cp <classPath> <mainClass> <arguments>}, run with the
 * JDK of the calling JVM ({@code java.home}). The name identifies the process within its
 * {@link ProcessGroup} and names its log file, so it is restricted to letters, digits, {@code .},
 * {@code _} and {@code -}.
 *
 * @param name       unique among the live processes of a group, e.g. {@code broker-1}
 * @param classPath  the class path, entries joined with {@link File#pathSeparator}
 * @param mainClass  the fully qualified main class
 * @param jvmOptions options before {@code -cp} ({@code -Xmx1g}, {@code -Dkey=value}, ...)
 * @param arguments  the main method's arguments
 */
public record JvmSpec(String name, String classPath, String mainClass, List<String> jvmOptions, List<String> arguments) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public JvmSpec {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("Process name '" + name + "' must be 1-64 of [A-Za-z0-9._-]");
        }
        if (classPath == null || classPath.isBlank()) {
            throw new IllegalArgumentException("Process " + name + ": empty class path");
        }
        if (mainClass == null || mainClass.isBlank()) {
            throw new IllegalArgumentException("Process " + name + ": no main class");
        }
        jvmOptions = List.copyOf(jvmOptions);
        arguments = List.copyOf(arguments);
    }

    /** A spec with no JVM options and no arguments. */
    public static JvmSpec of(String name, String classPath, String mainClass) {
        return new JvmSpec(name, classPath, mainClass, List.of(), List.of());
    }

    /** The class path made of {@code entries} (directories or jars). */
    public static String classPathOf(List<Path> entries) {
        return String.join(File.pathSeparator, entries.stream().map(Path::toString).toList());
    }

    /** This spec with {@code options} added after the current JVM options. */
    public JvmSpec withJvmOptions(String... options) {
        List<String> all = new ArrayList<>(jvmOptions);
        all.addAll(List.of(options));
        return new JvmSpec(name, classPath, mainClass, all, arguments);
    }

    /** This spec with {@code args} added after the current arguments. */
    public JvmSpec withArguments(String... args) {
        List<String> all = new ArrayList<>(arguments);
        all.addAll(List.of(args));
        return new JvmSpec(name, classPath, mainClass, jvmOptions, all);
    }

    /** The command line, {@code java} of {@code java.home} first. */
    public List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(arguments);
        return command;
    }
}
