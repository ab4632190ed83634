package dev.insync.replication.log;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The one place the log forces bytes to stable storage (file data, mapped indexes, directories).
 *
 * <p>Forcing is on by default and must stay on in production. A deterministic simulator that
 * models machine crashes itself (it cuts every log back to its recovery point on a simulated power
 * loss) may turn it off for the whole JVM with {@link #disableForSimulation()}: the bytes still
 * reach the files, only the wait for the disk is skipped, which otherwise dominates simulated runs.
 */
public final class FileSync {

    private static volatile boolean enabled = true;

    private FileSync() {
    }

    /** {@link FileChannel#force(boolean)} unless disabled. */
    public static void force(FileChannel channel, boolean metaData) throws IOException {
        if (enabled) {
            channel.force(metaData);
        }
    }

    /** {@link MappedByteBuffer#force()} unless disabled. */
    public static void force(MappedByteBuffer buffer) {
        if (enabled) {
            buffer.force();
        }
    }

    /** Simulation only: skips every force from now on in this JVM (see the class comment). */
    public static void disableForSimulation() {
        enabled = false;
    }

    /** Turns forcing back on. */
    public static void enable() {
        enabled = true;
    }

    /** Whether forces reach the disk. */
    public static boolean isEnabled() {
        return enabled;
    }
}
