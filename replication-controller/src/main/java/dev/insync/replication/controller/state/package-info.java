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
 * The controller's state and the only code that changes it: replay of records
 * ({@link dev.insync.replication.controller.state.ControllerState}), shared with the view an
 * operation has of its own records ({@link dev.insync.replication.controller.state.ChangeSet}).
 * Snapshots and broker images are made here (CTL-1, CTL-5).
 */
package dev.insync.replication.controller.state;
