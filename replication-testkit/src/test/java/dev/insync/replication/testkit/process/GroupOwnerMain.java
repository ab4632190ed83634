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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A JVM that owns a {@link ProcessGroup}, so tests can end an owner the two ways a run ends
 * without closing its group: it returns from main ({@code exit}: the shutdown hook must reap the
 * child) or it waits until the test kills it with {@code kill -9} ({@code wait}: the next
 * {@link ProcessGroup#open} must reap the child). Arguments: mode, PID directory, log directory,
 * file to write the child's PID to, the child's port file, the child's hook file.
 */
public final class GroupOwnerMain {

    private GroupOwnerMain() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Path pidDir = Path.of(args[1]);
        Path logDir = Path.of(args[2]);
        Path childPidFile = Path.of(args[3]);
        ProcessGroup group = ProcessGroup.open(logDir, pidDir);
        JvmProcess child = group.start(ProcessTesting.echoServer("child", Path.of(args[4]), Path.of(args[5])));
        child.awaitReady(ProcessTesting.portFileWritten(Path.of(args[4])), Duration.ofSeconds(30));
        Path tmp = Path.of(childPidFile + ".tmp");
        Files.writeString(tmp, Long.toString(child.pid()));
        Files.move(tmp, childPidFile);
        if (mode.equals("wait")) {
            Thread.sleep(Long.MAX_VALUE); // until the test's kill -9
        }
        // "exit": return without closing the group; the shutdown hook must reap the child
    }
}
