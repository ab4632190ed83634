package dev.insync.replication.log.record;

/**
 * A codec whose library is not on the class path, or does not work in this JVM: a configuration
 * error that names the codec and the library to add. Reading such a batch turns it into
 * CORRUPT_MESSAGE naming the batch (the bytes are never misread); writing one throws it as is.
 */
final class CodecUnavailableException extends IllegalStateException {

    CodecUnavailableException(CompressionType type, String reason) {
        super(type.codecName() + " compression is not available: " + reason);
    }
}
