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

package dev.insync.replication.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * How one log directory touches the disk: whether forces really wait for it (durability), and the
 * {@link StorageFaults} hook every write, flush and directory fsync of its files passes through.
 * A {@link LogDirectory} (or a standalone {@link Log}) is given one when opened and hands it to
 * every segment, index and checkpoint file it owns; there is no JVM-wide switch, so two directories
 * in one process may differ.
 *
 * <p>{@link #durable()} is the production setting. {@link #withoutFsync()} is for a deterministic
 * simulator that models machine crashes itself (it cuts logs back to their recovery point on a
 * simulated power loss) and for tests that reopen closed files: bytes still reach the files, only
 * the wait for the disk is skipped. The fault hook is called in both.
 *
 * <p>Immutable and thread-safe.
 */
public final class FileSync {

    private static final FileSync DURABLE = new FileSync(true, StorageFaults.NONE);
    private static final FileSync WITHOUT_FSYNC = new FileSync(false, StorageFaults.NONE);

    private final boolean durable;
    private final StorageFaults faults;

    private FileSync(boolean durable, StorageFaults faults) {
        this.durable = durable;
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /** Forces reach the disk; no faults. The default everywhere. */
    public static FileSync durable() {
        return DURABLE;
    }

    /** Forces are skipped (simulation and tests only, see the class comment); no faults. */
    public static FileSync withoutFsync() {
        return WITHOUT_FSYNC;
    }

    /** {@link #durable()} if {@code durable}, else {@link #withoutFsync()}. */
    public static FileSync of(boolean durable) {
        return durable ? DURABLE : WITHOUT_FSYNC;
    }

    /** The same durability with {@code faults} as the fault hook. */
    public FileSync withFaults(StorageFaults faults) {
        return new FileSync(durable, faults);
    }

    /** Whether forces wait for the disk. */
    public boolean isDurable() {
        return durable;
    }

    /** The fault hook ({@link StorageFaults#NONE} unless one was installed). */
    public StorageFaults faults() {
        return faults;
    }

    // ---- the operations (the log's own code calls these) ----

    /** Announces a {@link StorageOperation.Kind#WRITE} to {@code file}; the caller then does it. */
    public void beforeWrite(Path file) throws IOException {
        announce(StorageOperation.Kind.WRITE, file);
    }

    /** LOG-11: forces {@code channel} (the file {@code file}) with its metadata, if durable. */
    public void force(FileChannel channel, Path file) throws IOException {
        announce(StorageOperation.Kind.FLUSH, file);
        if (durable) {
            channel.force(true);
        }
    }

    /** Forces a mapped index (the file {@code file}), if durable. */
    public void force(MappedByteBuffer map, Path file) throws IOException {
        announce(StorageOperation.Kind.FLUSH, file);
        if (durable) {
            try {
                map.force();
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
    }

    /** Makes a creation, rename or deletion in {@code dir} durable (Linux and macOS can open a directory for this). */
    public void fsyncDirectory(Path dir) throws IOException {
        announce(StorageOperation.Kind.DIRECTORY_FSYNC, dir);
        if (durable) {
            UninterruptibleIo.run(() -> {
                try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
                    channel.force(true);
                }
            });
        }
    }

    private void announce(StorageOperation.Kind kind, Path file) throws IOException {
        if (faults != StorageFaults.NONE) {
            faults.beforeOperation(new StorageOperation(kind, file, durable));
        }
    }

    @Override
    public String toString() {
        return "FileSync(" + (durable ? "durable" : "without fsync")
                + (faults == StorageFaults.NONE ? "" : ", with faults " + faults) + ")";
    }
}
