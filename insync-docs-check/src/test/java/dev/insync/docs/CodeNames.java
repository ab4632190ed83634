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

package dev.insync.docs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves the code names a doc writes in backticks ({@code Partition}, {@code Partition#makeLeader},
 * {@code core.replica.ReplicaState.isCaughtUp}, {@code Log.read(...)}) against the repository's own
 * declarations, the JDK, and named lists of other projects' names.
 */
final class CodeNames {

    /** A backticked span that names a type: optional lower-case package, a CamelCase type, then members. */
    static final Pattern NAME = Pattern.compile(
            "((?:[a-z][a-z0-9]*\\.)*)([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)((?:[.#][A-Za-z_][A-Za-z0-9_]*)*)(?:\\(.*\\))?");
    /** {@code log.record.*}: a package of ours. */
    static final Pattern PACKAGE_WILDCARD = Pattern.compile("((?:[a-z][a-z0-9]*\\.)+)\\*");
    /** {@code core.replica.{Replica, ReplicaState}}, {@code dev.insync.replication.testkit.{sim,network}}. */
    static final Pattern BRACES = Pattern.compile("((?:[a-z][a-z0-9]*\\.)+)\\{([A-Za-z0-9, ]+)}");
    /** {@code dev.insync.replication.testkit.sim}: a package of ours, fully qualified. */
    static final Pattern OUR_PACKAGE = Pattern.compile("dev\\.insync\\.replication(?:\\.[a-z][a-z0-9]*)*");

    static final String OUR_ROOT = "dev.insync.replication.";

    /**
     * Apache Kafka's classes (and JMX metric names) that the docs cite as Kafka's, to compare with ours.
     * A name from this list is accepted only where the doc says it is Kafka's: "Kafka" earlier in the same
     * paragraph, list item or table row, or a table column headed "Kafka". Kafka's classes that share a
     * name with ours (Partition, ReplicaManager, DelayedFetch, ...) resolve as ours first, then as Kafka's
     * where so marked (so a member only Kafka's class has passes only there).
     */
    static final Set<String> KAFKA = Set.of(
            "UnifiedLog", "LocalLog", "LogSegment", "LogValidator", "LeaderEpochFileCache", "MemoryRecords",
            "FileRecords", "TimeIndex", "OffsetIndex", "TopicPartition", "Partition", "PartitionState", "Replica",
            "ReplicaManager", "DelayedFetch", "DelayedProduce", "DelayedOperation", "DelayedOperationPurgatory",
            "SystemTimer", "TimerTask", "AbstractFetcherThread", "AbstractFetcherManager", "ReplicaFetcherThread",
            "RemoteLeaderEndPoint", "DefaultAlterPartitionManager", "AlterPartitionManager", "BrokerLifecycleManager",
            "QuorumController", "ReplicationControlManager", "PartitionChangeBuilder", "LeaderRecoveryState",
            "MetadataDelta", "NetworkClient", "Errors", "RecordBatch", "DumpLogSegments", "KafkaRaftClient",
            "LogAppendInfo", "ExponentialBackoff", "SocketServer", "RequestChannel", "KafkaApis", "ReplicaAlterLogDirsThread",
            "LogManager", "DelayedItem", "ApiMessage",
            // JMX metrics, kafka.server:type=ReplicaManager,name=... and type=ReplicaFetcherManager,name=MaxLag
            "UnderReplicatedPartitions", "UnderMinIsrPartitionCount", "IsrShrinksPerSec", "IsrExpandsPerSec",
            "FailedIsrUpdatesPerSec", "MaxLag", "AtMinIsrPartitionCount", "OfflineReplicaCount");

    /** Other libraries' classes the docs name, with the library (their names are not checked further). */
    static final Map<String, String> LIBRARIES = Map.ofEntries(
            Map.entry("SslHandler", "Netty"), Map.entry("EmbeddedChannel", "Netty"), Map.entry("FileRegion", "Netty"),
            Map.entry("Epoll", "Netty"), Map.entry("ByteBuf", "Netty"), Map.entry("DefaultFileRegion", "Netty"),
            Map.entry("ChannelPipeline", "Netty"), Map.entry("EventLoopGroup", "Netty"),
            Map.entry("SnappyOutputStream", "snappy-java"), Map.entry("SnappyInputStream", "snappy-java"),
            Map.entry("LZ4FrameOutputStream", "lz4-java"), Map.entry("ZstdInputStream", "zstd-jni"),
            Map.entry("QuickTheory", "QuickTheories"), Map.entry("Blackhole", "JMH"),
            Map.entry("Histogram", "HdrHistogram"), Map.entry("XYChart", "XChart"));

    /** JDK packages a bare simple name is looked up in. */
    private static final List<String> JDK_PACKAGES = List.of(
            "java.lang.", "java.util.", "java.util.concurrent.", "java.util.concurrent.atomic.",
            "java.util.concurrent.locks.", "java.util.zip.", "java.util.function.", "java.io.", "java.nio.",
            "java.nio.channels.", "java.nio.file.", "java.net.", "java.time.", "javax.net.ssl.",
            "javax.security.auth.x500.", "java.lang.invoke.", "java.security.");

    private final Map<String, List<JavaSources.TypeDecl>> bySimpleName = new HashMap<>();
    private final Set<String> packages = new HashSet<>();

    CodeNames(List<JavaSources.TypeDecl> types) {
        for (JavaSources.TypeDecl t : types) {
            bySimpleName.computeIfAbsent(t.simpleName(), k -> new ArrayList<>()).add(t);
            packages.add(t.packageName());
        }
    }

    /** The names a backticked span stands for (several for {@code pkg.{A, B}}), or none if it is no code name. */
    static List<String> namesIn(String span) {
        String s = span.trim();
        Matcher braces = BRACES.matcher(s);
        if (braces.matches()) {
            List<String> names = new ArrayList<>();
            for (String part : braces.group(2).split(",")) {
                String p = part.trim();
                if (Character.isUpperCase(p.charAt(0))) {
                    names.add(braces.group(1) + p); // a type in that package
                } else if (braces.group(1).startsWith(OUR_ROOT)) {
                    names.add(braces.group(1) + p + ".*"); // a package of ours
                } // else file names such as latency.{png,svg}
            }
            return names;
        }
        if (OUR_PACKAGE.matcher(s).matches()) {
            return List.of(s + ".*");
        }
        if (NAME.matcher(s).matches() || PACKAGE_WILDCARD.matcher(s).matches()) {
            return List.of(s);
        }
        return List.of();
    }

    /** Why {@code name} does not resolve, or empty if it does; {@code markedKafka}: the doc calls it Kafka's here. */
    Optional<String> problem(String name, boolean markedKafka) {
        Matcher wildcard = PACKAGE_WILDCARD.matcher(name);
        if (wildcard.matches()) {
            String prefix = wildcard.group(1);
            if (isExternalPackage(prefix) && !ourPackageExists(prefix)) {
                return Optional.empty(); // another library's package, e.g. net.jpountz.*
            }
            String pkg = ourPackage(prefix);
            return packages.stream().anyMatch(p -> p.equals(pkg) || p.startsWith(pkg + "."))
                    ? Optional.empty() : Optional.of("no package " + pkg + " in the sources");
        }
        Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            return Optional.of("not a code name");
        }
        String prefix = m.group(1);
        String type = m.group(2);
        List<String> members = m.group(3).isEmpty() ? List.of() : List.of(m.group(3).substring(1).split("[.#]"));
        if (prefix.startsWith("kafka.") || prefix.startsWith("org.apache.kafka.")) {
            return Optional.empty(); // named by Kafka's own package
        }
        if (!prefix.isEmpty() && isExternalPackage(prefix) && !ourPackageExists(prefix)) {
            return Optional.empty(); // another library's fully qualified name
        }
        Optional<String> ours = resolveOurs(type, members, prefix.isEmpty() ? null : ourPackage(prefix));
        if (ours.isEmpty() || !prefix.isEmpty()) {
            return ours;
        }
        if (KAFKA.contains(type)) {
            return markedKafka ? Optional.empty()
                    : Optional.of(ours.get() + "; if it is Kafka's " + type + ", say so on that line (\"Kafka's\")");
        }
        if (LIBRARIES.containsKey(type) || resolvesInJdk(type, members)) {
            return Optional.empty();
        }
        return ours;
    }

    private static boolean isExternalPackage(String prefix) {
        return List.of("java.", "javax.", "org.", "io.", "com.", "net.", "at.", "jdk.", "sun.").stream()
                .anyMatch(prefix::startsWith);
    }

    private boolean ourPackageExists(String prefix) {
        return packages.contains(ourPackage(prefix));
    }

    /** {@code core.partition.} → {@code dev.insync.replication.core.partition}. */
    private static String ourPackage(String prefix) {
        String pkg = prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix;
        return pkg.startsWith(OUR_ROOT) ? pkg : OUR_ROOT + pkg;
    }

    /** Empty if {@code type} (in {@code pkg}, if given) declares or inherits every member in turn. */
    private Optional<String> resolveOurs(String type, List<String> members, String pkg) {
        List<JavaSources.TypeDecl> candidates = bySimpleName.getOrDefault(type, List.of()).stream()
                .filter(t -> pkg == null || t.packageName().equals(pkg))
                .toList();
        if (candidates.isEmpty()) {
            return Optional.of("no class " + type + (pkg == null ? "" : " in " + pkg) + " in the sources");
        }
        String lastProblem = null;
        for (JavaSources.TypeDecl start : candidates) {
            JavaSources.TypeDecl current = start;
            String problem = null;
            for (String member : members) {
                Optional<JavaSources.TypeDecl> nested = nestedType(current, member);
                if (nested.isPresent()) {
                    current = nested.get();
                } else if (!hasMember(current, member, new HashSet<>())) {
                    problem = current.typeName() + " has no member " + member;
                    break;
                }
            }
            if (problem == null) {
                return Optional.empty();
            }
            lastProblem = problem;
        }
        return Optional.of(lastProblem);
    }

    private Optional<JavaSources.TypeDecl> nestedType(JavaSources.TypeDecl outer, String name) {
        String nestedName = outer.typeName() + "." + name;
        return bySimpleName.getOrDefault(name, List.of()).stream()
                .filter(t -> t.packageName().equals(outer.packageName()) && t.typeName().equals(nestedName))
                .findFirst();
    }

    /** Declared here or in a supertype; a supertype outside the sources may declare anything. */
    private boolean hasMember(JavaSources.TypeDecl type, String member, Set<String> seen) {
        if (type.members().contains(member)) {
            return true;
        }
        if (!seen.add(type.packageName() + "." + type.typeName())) {
            return false;
        }
        for (String superName : type.supertypes()) {
            List<JavaSources.TypeDecl> supers = bySimpleName.getOrDefault(superName, List.of());
            if (supers.isEmpty()) {
                if (resolvesInJdk(superName, List.of(member))) {
                    return true;
                }
                continue;
            }
            for (JavaSources.TypeDecl s : supers) {
                if (hasMember(s, member, seen)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A JDK class of that simple name exists and declares (or inherits) each member in turn. */
    static boolean resolvesInJdk(String type, List<String> members) {
        for (String pkg : JDK_PACKAGES) {
            Class<?> c;
            try {
                c = Class.forName(pkg + type, false, CodeNames.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                continue;
            }
            if (hasJdkMembers(c, members)) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasJdkMembers(Class<?> c, List<String> members) {
        Class<?> current = c;
        for (String member : members) {
            Class<?> nested = null;
            for (Class<?> n : current.getClasses()) {
                if (n.getSimpleName().equals(member)) {
                    nested = n;
                }
            }
            if (nested != null) {
                current = nested;
                continue;
            }
            if (!declaresOrInherits(current, member)) {
                return false;
            }
        }
        return true;
    }

    /** Any method or field of that name, public or not (docs name JDK internals such as HashMap.resize). */
    private static boolean declaresOrInherits(Class<?> c, String member) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (java.util.Arrays.stream(k.getDeclaredMethods()).anyMatch(x -> x.getName().equals(member))
                    || java.util.Arrays.stream(k.getDeclaredFields()).anyMatch(x -> x.getName().equals(member))) {
                return true;
            }
        }
        return java.util.Arrays.stream(c.getMethods()).anyMatch(x -> x.getName().equals(member));
    }
}
