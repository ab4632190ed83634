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

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CliLoggingTest {

    private String level;
    private String file;

    @BeforeEach
    void save() {
        level = System.clearProperty(CliLogging.LOG_LEVEL_PROPERTY);
        file = System.clearProperty(CliLogging.LOG_FILE_PROPERTY);
    }

    @AfterEach
    void restore() {
        restore(CliLogging.LOG_LEVEL_PROPERTY, level);
        restore(CliLogging.LOG_FILE_PROPERTY, file);
    }

    private static void restore(String name, String value) {
        if (value == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, value);
        }
    }

    @Test
    void linesGoToStderrAtTheGivenLevel() {
        CliLogging.toStderr("warn");
        assertThat(System.getProperty(CliLogging.LOG_FILE_PROPERTY)).isEqualTo("System.err");
        assertThat(System.getProperty(CliLogging.LOG_LEVEL_PROPERTY)).isEqualTo("warn");
    }

    @Test
    void aPropertyFromTheCommandLineWins() {
        System.setProperty(CliLogging.LOG_FILE_PROPERTY, "System.out");
        System.setProperty(CliLogging.LOG_LEVEL_PROPERTY, "debug");
        CliLogging.toStderr("warn");
        assertThat(System.getProperty(CliLogging.LOG_FILE_PROPERTY)).isEqualTo("System.out");
        assertThat(System.getProperty(CliLogging.LOG_LEVEL_PROPERTY)).isEqualTo("debug");
    }
}
