/** Test support for embedders and adapters: in-memory ports and the persistence conformance suite. */
export * as InMemory from "./testing/InMemory.js"
export { type PersistencePorts, runConformance } from "./testing/Conformance.js"
