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

package dev.insync.replication.cli;

/**
 * Where the CLI's slf4j-simple lines go. slf4j-simple reads its properties when the first logger is
 * created, so a command calls this before it builds anything that logs; a {@code -D} given on the
 * command line wins.
 */
final class CliLogging {

    static final String LOG_LEVEL_PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";
    static final String LOG_FILE_PROPERTY = "org.slf4j.simpleLogger.logFile";

    private CliLogging() {
    }

    /**
     * Log lines at {@code level} and above go to stderr, so that stdout carries only the command's
     * own report (one line per seed, or JSON with {@code --json}).
     */
    static void toStderr(String level) {
        if (System.getProperty(LOG_LEVEL_PROPERTY) == null) {
            System.setProperty(LOG_LEVEL_PROPERTY, level);
        }
        if (System.getProperty(LOG_FILE_PROPERTY) == null) {
            System.setProperty(LOG_FILE_PROPERTY, "System.err");
        }
    }
}
