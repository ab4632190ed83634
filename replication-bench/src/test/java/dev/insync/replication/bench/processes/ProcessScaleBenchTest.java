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

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProcessScaleBenchTest {

    @Test
    void aCostStillFallingIsNotSettledTwoAboutTheSameAre() {
        // The first 15 s windows after a 30,000-partition topic was created: the JIT compiler's tail.
        assertThat(ProcessScaleBench.settled(Double.NaN, 0.20)).isFalse();
        assertThat(ProcessScaleBench.settled(0.20, 0.046)).isFalse();
        assertThat(ProcessScaleBench.settled(0.046, 0.17)).isFalse();
        assertThat(ProcessScaleBench.settled(0.046, 0.040)).isTrue();
        assertThat(ProcessScaleBench.settled(0.040, 0.046)).isTrue();
        // All brokers together under 2 % of a core: nothing left to wait for.
        assertThat(ProcessScaleBench.settled(Double.NaN, 0.019)).isTrue();
    }

    @Test
    void aClassHistogramsTotalLineIsItsLiveBytes() throws Exception {
        String histogram = " num     #instances         #bytes  class name (module)\n"
                + "-------------------------------------------------------\n"
                + "   1:         12345        1234560  [B (java.base@17.0.15)\n"
                + "Total         23456        9876543\n";
        assertThat(ProcessScaleBench.histogramTotalBytes(histogram, 1)).isEqualTo(9_876_543L);
        assertThatThrownBy(() -> ProcessScaleBench.histogramTotalBytes("1234: no such process", 1234))
                .isInstanceOf(IOException.class).hasMessageContaining("pid 1234");
        // And for real, of this JVM (jcmd is another process, so this is no self-attach).
        assertThat(ProcessScaleBench.liveHeapBytes(ProcessHandle.current().pid())).isPositive();
    }
}
