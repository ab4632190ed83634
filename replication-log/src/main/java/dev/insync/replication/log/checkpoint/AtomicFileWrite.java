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

package dev.insync.replication.log.checkpoint;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.UninterruptibleIo;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * LOG-9's atomic replace: write {@code <file>.tmp}, fsync it, rename it over {@code file}, fsync
 * the directory. A reader sees either the old content or the new, never a mix; a failure before the
 * rename leaves the old file untouched and removes the temp file. Every step goes through the
 * directory's {@link FileSync} (durability and fault hook); an interrupt of the writing thread
 * rewrites the temp file from the start instead of failing ({@link UninterruptibleIo}).
 */
final class AtomicFileWrite {

    /** Writes the content; may throw anything, which aborts the replace. May be called again on a retry. */
    @FunctionalInterface
    interface Content {
        void writeTo(Writer writer) throws IOException;
    }

    private AtomicFileWrite() {
    }

    /** The temp file used while replacing {@code file}. */
    static Path tempFileFor(Path file) {
        return file.resolveSibling(file.getFileName() + ".tmp");
    }

    /**
     * Atomically replaces {@code file} with {@code content}.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR naming the file on an I/O failure
     */
    static void replace(Path file, Content content, FileSync fileSync) {
        Path tmp = tempFileFor(file);
        boolean renamed = false;
        try {
            UninterruptibleIo.run(() -> {
                fileSync.beforeWrite(tmp);
                try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
                    Writer writer = new BufferedWriter(Channels.newWriter(channel, StandardCharsets.UTF_8));
                    content.writeTo(writer);
                    writer.flush();
                    fileSync.force(channel, tmp);
                }
            });
            fileSync.beforeWrite(file);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            renamed = true;
            fileSync.fsyncDirectory(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not write " + file + ": " + e, e);
        } finally {
            if (!renamed) {
                deleteQuietly(tmp);
            }
        }
    }

    private static void deleteQuietly(Path tmp) {
        try {
            Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
            // The write already failed and reports that; a stale temp file is ignored by readers
            // and replaced by the next write.
        }
    }
}
