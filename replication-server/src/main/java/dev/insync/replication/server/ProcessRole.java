package dev.insync.replication.server;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** What an {@link InsyncServer} runs, as Kafka's {@code process.roles} names it. */
public enum ProcessRole {
    /** An {@code InsyncBroker}: partitions, replication, Fetch/Produce/Metadata. */
    BROKER,
    /** A controller node: a {@code QuorumController} on a Ratis metadata log. */
    CONTROLLER;

    /** Its name in {@code process.roles}. */
    public String propertyValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code process.roles}: {@code broker}, {@code controller} or both, comma-separated.
     *
     * @throws IllegalArgumentException naming the property
     */
    public static Set<ProcessRole> parse(String value) {
        Set<ProcessRole> roles = EnumSet.noneOf(ProcessRole.class);
        for (String part : value.split(",", -1)) {
            String p = part.trim().toLowerCase(Locale.ROOT);
            ProcessRole role = switch (p) {
                case "broker" -> BROKER;
                case "controller" -> CONTROLLER;
                default -> throw new IllegalArgumentException("Invalid value '" + value + "' for configuration "
                        + ServerConfig.PROCESS_ROLES + ": each role must be 'broker' or 'controller', got '" + part.trim()
                        + "'");
            };
            if (!roles.add(role)) {
                throw new IllegalArgumentException("Invalid value '" + value + "' for configuration "
                        + ServerConfig.PROCESS_ROLES + ": '" + p + "' appears twice");
            }
        }
        return roles;
    }
}
