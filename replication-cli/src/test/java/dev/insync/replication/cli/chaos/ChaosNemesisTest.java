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

package dev.insync.replication.cli.chaos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The nemesis's choices depend on its seed alone. */
class ChaosNemesisTest {

    @Test
    @DisplayName("INV-6 CHS-1 one seed, one fault sequence: the kinds are indexed in declaration order whatever order the"
            + " set of kinds iterates in (an immutable set's changes from one JVM to the next)")
    void kindsInDeclarationOrder() {
        LinkedHashSet<ChaosNemesis.Kind> reversed = new LinkedHashSet<>(List.of(ChaosNemesis.Kind.CONTROLLER,
                ChaosNemesis.Kind.PARTITION, ChaosNemesis.Kind.PAUSE, ChaosNemesis.Kind.KILL));
        List<ChaosNemesis.Kind> expected = List.of(ChaosNemesis.Kind.KILL, ChaosNemesis.Kind.PAUSE,
                ChaosNemesis.Kind.PARTITION, ChaosNemesis.Kind.CONTROLLER);
        assertThat(new ChaosNemesis(null, new ChaosRecorder(), 11, reversed).kinds()).containsExactlyElementsOf(expected);
        assertThat(new ChaosNemesis(null, new ChaosRecorder(), 11,
                ChaosSettings.parseFaults("controller,kill,pause,partition")).kinds()).containsExactlyElementsOf(expected);
    }
}
