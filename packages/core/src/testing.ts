/** Test support for embedders and adapters: in-memory ports and the port conformance suites. */
export * as InMemory from "./testing/InMemory.js"
export { type PersistencePorts, runConformance } from "./testing/Conformance.js"
export { runAccountsConformance } from "./testing/AccountsConformance.js"
export { runIdempotencyConformance } from "./testing/IdempotencyConformance.js"
export { runRateLimiterConformance } from "./testing/RateLimiterConformance.js"
export * as InMemoryInventory from "./testing/InMemoryInventory.js"
export { runInventoryConformance } from "./testing/InventoryConformance.js"
