/**
 * The randomized simulation of contract §11: {@link dev.insync.replication.testkit.simulation.Simulation}
 * runs one seed (a random workload and random faults on an in-memory cluster in virtual time, then
 * heal-and-quiesce), {@link dev.insync.replication.testkit.simulation.Recorder} writes down what
 * clients saw as a {@code History} plus brokers' state samples, and the {@code InvariantChecker}
 * decides INV-1..INV-8. The CLI's {@code simulate} command runs ranges of seeds; a failing seed
 * replays exactly.
 */
package dev.insync.replication.testkit.simulation;
