package dev.insync.replication.testkit.scenario;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SeedScenariosTest {

    @Test
    @DisplayName("SCN smoke")
    void smoke() {
        for (Scenario s : Scenario.all()) {
            long t0 = System.nanoTime();
            ScenarioResult r = s.run(ScenarioSettings.defaults(), System.out::println);
            System.out.println(r.toJson());
            System.out.println("WALL " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        }
    }
}
