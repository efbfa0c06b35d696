/**
 * The ports of `@catalog-sync/core` in memory: a whole working catalog without a database, for
 * embedding applications that try the core out, demos and domain tests. Imports nothing but `effect`,
 * so it loads in any program (the conformance suites that hold adapters to these live in `/testing`).
 */
export * as InMemory from "./memory/InMemory.js"
export * as InMemoryInventory from "./memory/InMemoryInventory.js"
export * as InMemoryJobs from "./memory/InMemoryJobs.js"
export * as InMemoryMedia from "./memory/InMemoryMedia.js"
