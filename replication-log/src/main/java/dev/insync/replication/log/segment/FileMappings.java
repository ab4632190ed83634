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

package dev.insync.replication.log.segment;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Every mapping made of one file, so that they can be unmapped when the file's segment is closed
 * or deleted rather than whenever the garbage collector gets to them. Until then a deleted file's
 * mapped pages keep its disk blocks allocated and count against the process's
 * {@code vm.max_map_count}, and on a broker whose old generation is rarely collected that can take
 * hours. (Kafka unmaps its indexes explicitly for the same reason.)
 *
 * <p>A mapping a reader may still hold is only dropped, never unmapped: touching an unmapped
 * buffer crashes the JVM. {@link #unmapAll} is for the end of the file's life, when the caller
 * excludes every reader and writer of it: a {@code Log} closes and deletes segments holding both
 * its lock and the write side of its segment lock, and every read and append holds one of them.
 * Mappings are held weakly, so one dropped earlier is still released by the collector if that
 * comes first.
 *
 * <p>Where the JDK offers no way to unmap ({@code sun.misc.Unsafe#invokeCleaner} is missing),
 * {@link #unmapAll} only drops the references and the collector releases the mappings, as before.
 */
final class FileMappings {

    private static final Logger LOG = LoggerFactory.getLogger(FileMappings.class);
    /** {@code Unsafe.invokeCleaner(ByteBuffer)} bound to the instance, or null if this JDK has none. */
    private static final MethodHandle INVOKE_CLEANER = findInvokeCleaner();

    /** Null until the first mapping: most indexes of a broker with many partitions are never mapped. */
    private List<WeakReference<MappedByteBuffer>> made;

    /** Remembers {@code map} (a mapping of this file, not a slice or duplicate of one) and returns it. */
    synchronized MappedByteBuffer track(MappedByteBuffer map) {
        if (made == null) {
            made = new ArrayList<>(2);
        }
        made.removeIf(ref -> ref.get() == null);
        made.add(new WeakReference<>(map));
        return map;
    }

    /**
     * Unmaps every mapping still reachable. The caller guarantees that no thread reads or writes
     * any of them now or later (the owner has already dropped its references).
     */
    synchronized void unmapAll() {
        if (made == null) {
            return;
        }
        for (WeakReference<MappedByteBuffer> ref : made) {
            MappedByteBuffer map = ref.get();
            if (map != null && INVOKE_CLEANER != null) {
                try {
                    INVOKE_CLEANER.invokeExact((ByteBuffer) map);
                } catch (Throwable e) {
                    // Left to the collector, as where the JDK cannot unmap.
                    LOG.warn("Could not unmap a file mapping; the garbage collector will", e);
                }
            }
        }
        made = null;
    }

    private static MethodHandle findInvokeCleaner() {
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            MethodHandle cleaner = MethodHandles.lookup().findVirtual(unsafeClass, "invokeCleaner",
                    MethodType.methodType(void.class, ByteBuffer.class));
            return cleaner.bindTo(theUnsafe.get(null));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.info("This JDK cannot unmap files explicitly; mappings are released by the garbage collector ({})",
                    e.toString());
            return null;
        }
    }
}
