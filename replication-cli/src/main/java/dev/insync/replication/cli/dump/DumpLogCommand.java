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

package dev.insync.replication.cli.dump;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code insync dump-log <file>...} (or Kafka's {@code --files a,b}): prints segment files
 * ({@code .log}, {@code .index}, {@code .timeindex}) in the text of Kafka's
 * {@code kafka-dump-log.sh --files}, so a segment written by this library and one written by Kafka
 * can be compared line by line (LOG-1, LOG-2).
 *
 * <p>Exit code 0 when every file was dumped and nothing was wrong; 1 when a file could not be
 * dumped (missing, not a segment file, unreadable) or the dump found something wrong (a batch that
 * fails its CRC, invalid bytes at the end of a log, index entries that do not match the log,
 * records that cannot be decoded). Problems are described on stderr; stdout stays Kafka's format.
 */
@Command(name = "dump-log",
        mixinStandardHelpOptions = true,
        description = {
            "Prints segment files as Kafka's kafka-dump-log.sh --files does.",
            "Exit code 1 if a file cannot be read or holds corrupt data (described on stderr)."})
public final class DumpLogCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "<file>",
            description = "Segment files: <base offset>.log, .index or .timeindex.")
    private List<Path> files = new ArrayList<>();

    @Option(names = "--files", split = ",", paramLabel = "<file>",
            description = "Comma-separated segment files, as kafka-dump-log.sh takes them (dumped after <file>...).")
    private List<Path> kafkaStyleFiles = new ArrayList<>();

    @Option(names = "--print-data-log",
            description = "Print each record's key and payload as UTF-8 text (implies --deep-iteration).")
    private boolean printDataLog;

    @Option(names = "--deep-iteration", description = "Print every record of every batch, not only the batches.")
    private boolean deepIteration;

    @Option(names = "--skip-record-metadata", description = "With deep iteration, omit each record's metadata.")
    private boolean skipRecordMetadata;

    @Override
    public Integer call() {
        List<Path> all = new ArrayList<>(files);
        all.addAll(kafkaStyleFiles);
        if (all.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "Missing segment file: give <file>... or --files");
        }
        for (Path file : all) {
            // Opening a FIFO for reading blocks until a writer comes: refuse anything that is not a
            // regular file (or a directory or missing file, reported below) before opening it.
            if (Files.exists(file) && !Files.isRegularFile(file) && !Files.isDirectory(file)) {
                throw new ParameterException(spec.commandLine(), file + " is not a regular file (a FIFO, device or"
                        + " socket); dump-log reads segment files");
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Findings findings = new Findings(err);
        SegmentDumper dumper = new SegmentDumper(out, findings,
                new SegmentDumper.Options(deepIteration || printDataLog, printDataLog, skipRecordMetadata));
        for (Path file : all) {
            try {
                dumper.dump(file);
            } catch (DumpException e) {
                findings.problem(e.getMessage());
            } catch (IOException e) {
                findings.problem("Cannot read " + file + ": " + e);
            }
        }
        out.flush();
        findings.printSummary();
        return findings.any() ? 1 : 0; // the exit codes of every insync command, see InsyncCli
    }
}
