/**
 * The domain kit without vitest: fast-check arbitraries of the domain, catalogs written through the use
 * case, probes that try a write and roll it back, the body and stock rules as properties, the reference
 * model of the catalog and the harness that checks any system against it. Every property is an Effect
 * that any test runner (or a script) can run; it needs `fast-check` besides `effect`.
 * `@catalog-sync/core/testing` exports all of it too, with the suites that register it as vitest tests.
 *
 * @packageDocumentation
 */
export * as Arbitraries from "./testing/Arbitraries.js"
export * as World from "./testing/World.js"
export * as Probe from "./testing/Probe.js"
export {
  assertOverWorlds,
  type BodyPropertyOptions,
  checkBodies,
  forAllWorlds,
  invalidMismatch,
  validMismatch,
  type WorldPropertyOptions,
  writeWorlds
} from "./testing/BodyProperties.js"
export * as ReferenceModel from "./testing/ReferenceModel.js"
export * as ModelHarness from "./testing/ModelHarness.js"
export { type ModelPorts, portsTarget, servicesOf } from "./testing/PortsTarget.js"
export { checkModel, memoryPorts, type ModelOptions } from "./testing/ModelCheck.js"
export { checkStockWrites, type StockPropertyOptions } from "./testing/StockProperties.js"
export * as Concurrency from "./testing/Concurrency.js"
export { type ReplayOptions } from "./testing/Replay.js"
export { checkImportBatches, type ImportPropertyOptions } from "./testing/ImportProperties.js"
