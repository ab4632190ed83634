package dev.insync.replication.cli.dump;

/**
 * A file dump-log cannot dump at all (missing, a directory, not named like a segment file). The
 * message names the file and is printed as is on stderr; the command exits with 1.
 */
final class DumpException extends RuntimeException {

    DumpException(String message) {
        super(message);
    }
}
