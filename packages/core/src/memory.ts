/**
 * The ports of `@catalog-sync/core` in memory: a whole working catalog without a database, for
 * embedding applications that try the core out, demos and domain tests. Imports nothing but `effect`,
 * so it loads in any program (the conformance suites that hold adapters to these live in `/testing`).
 *
 * @packageDocumentation
 */
/**
 * The persistence ports in memory: `layer` (with `accountsLayer` and `idempotencyLayer`) runs the core
 * without a database.
 */
export * as InMemory from "./memory/InMemory.js"
/** The stock ports in memory. */
export * as InMemoryInventory from "./memory/InMemoryInventory.js"
/** The job ports in memory: the queue and the imports' records. */
export * as InMemoryJobs from "./memory/InMemoryJobs.js"
/** The media ports in memory: repository, storage, staging and a stand-in image processor. */
export * as InMemoryMedia from "./memory/InMemoryMedia.js"
