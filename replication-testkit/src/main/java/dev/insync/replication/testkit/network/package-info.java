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

/**
 * The in-memory network of an in-process cluster: node-to-node request/response over a
 * {@link dev.insync.replication.testkit.sim.NodeRuntime}, with per-link delays, loss, FIFO order and
 * partitions, plus the adapters brokers use: {@code transportFor(brokerId)} (a
 * {@link dev.insync.replication.core.rpc.ReplicaTransport}), {@code controllerEndpointFor(brokerId)}
 * (a {@code ControllerApi} whose calls travel to the controller node, {@link
 * dev.insync.replication.testkit.network.ControllerRpc}) and {@code bindFetchHandler}. Clients'
 * produce and fetch requests use the generic {@code send(from, to, ServiceKey, request)} with keys
 * of their own.
 */
package dev.insync.replication.testkit.network;
