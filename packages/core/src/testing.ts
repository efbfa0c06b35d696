/**
 * Test support: the port conformance suites every adapter runs (under `@effect/vitest`) and the in-memory
 * ports of `@catalog-sync/core/memory` they are the reference of; the domain kit for property tests of the
 * rules (arbitraries, written catalogs, the body properties) and of whole adapters (a reference model of
 * the catalog and a harness that runs generated commands against any layer of the ports), with the suites
 * that register its properties as vitest tests. The domain kit alone, which loads without vitest, is
 * `@catalog-sync/core/domain-kit`.
 *
 * @packageDocumentation
 */
export { InMemory, InMemoryInventory, InMemoryJobs, InMemoryMedia } from "./memory.js"
export { type PersistencePorts, runConformance } from "./testing/Conformance.js"
/**
 * What persistence tests build with: fresh ids, a stored record, a mapping and a change entry with fixed
 * times; the conformance suites' fixtures, for the adapters' own tests.
 */
export * as PersistenceFixtures from "./testing/PersistenceFixtures.js"
export { runAccountsConformance } from "./testing/AccountsConformance.js"
export { runPeopleConformance } from "./testing/PeopleConformance.js"
export { runIdempotencyConformance } from "./testing/IdempotencyConformance.js"
export { runRateLimiterConformance } from "./testing/RateLimiterConformance.js"
export { runInventoryConformance } from "./testing/InventoryConformance.js"
export { runJobsConformance } from "./testing/JobsConformance.js"
export { chunksOf, runMediaStagingConformance, runMediaStorageConformance } from "./testing/MediaStorageConformance.js"
export { runMediaRepositoryConformance } from "./testing/MediaRepositoryConformance.js"
export * from "./domain-kit.js"
export { runBodyProperties } from "./testing/BodySuite.js"
export { runModelHarness } from "./testing/ModelSuite.js"
