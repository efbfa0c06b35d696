/**
 * Test support: the port conformance suites every adapter runs (under `@effect/vitest`) and the in-memory
 * ports of `@catalog-sync/core/memory` they are the reference of; the domain kit for property tests of the
 * rules (arbitraries, written catalogs, the body properties) and of whole adapters (a reference model of
 * the catalog and a harness that runs generated commands against any layer of the ports).
 *
 * @packageDocumentation
 */
export { InMemory, InMemoryInventory, InMemoryJobs, InMemoryMedia } from "./memory.js"
export { type PersistencePorts, runConformance } from "./testing/Conformance.js"
export { runAccountsConformance } from "./testing/AccountsConformance.js"
export { runIdempotencyConformance } from "./testing/IdempotencyConformance.js"
export { runRateLimiterConformance } from "./testing/RateLimiterConformance.js"
export { runInventoryConformance } from "./testing/InventoryConformance.js"
export { runJobsConformance } from "./testing/JobsConformance.js"
export { chunksOf, runMediaStagingConformance, runMediaStorageConformance } from "./testing/MediaStorageConformance.js"
export { runMediaRepositoryConformance } from "./testing/MediaRepositoryConformance.js"
export * as Arbitraries from "./testing/Arbitraries.js"
export * as World from "./testing/World.js"
export * as Probe from "./testing/Probe.js"
export {
  assertOverWorlds,
  type BodyPropertyOptions,
  checkBodies,
  forAllWorlds,
  invalidMismatch,
  runBodyProperties,
  validMismatch,
  type WorldPropertyOptions,
  writeWorlds
} from "./testing/BodyProperties.js"
export * as ReferenceModel from "./testing/ReferenceModel.js"
export * as ModelHarness from "./testing/ModelHarness.js"
export { type ModelPorts, portsTarget, servicesOf } from "./testing/PortsTarget.js"
export { checkModel, memoryPorts, type ModelOptions, runModelHarness } from "./testing/ModelSuite.js"
export { checkStockWrites, type StockPropertyOptions } from "./testing/StockProperties.js"
export * as Concurrency from "./testing/Concurrency.js"
export { type ReplayOptions } from "./testing/Replay.js"
export { checkImportBatches, type ImportPropertyOptions } from "./testing/ImportProperties.js"
