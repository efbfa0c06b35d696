/**
 * Test support for adapters: the port conformance suites (they run under `@effect/vitest`), and the
 * in-memory ports of `@catalog-sync/core/memory` they are the reference of.
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
