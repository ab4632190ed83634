/**
 * The broker side of reaching a controller quorum (CTL-4): {@link
 * dev.insync.replication.controller.channel.QuorumControllerChannel} turns a set of controller
 * endpoints ({@link dev.insync.replication.controller.api.ControllerApi}, however they are carried)
 * into core's {@code ControllerChannel} and {@code MetadataChannel}.
 */
package dev.insync.replication.controller.channel;
