/**
 * For the project's own adapters only (adapter-http, the server): internals of the core they share.
 * No compatibility promise: any of it may change or go in any release. Embedders and adapter authors use
 * `@catalog-sync/core`.
 *
 * - `BoundedDecode`: the bounded strict decoder behind `Decode`, which adapter-http also runs over a
 *   request's path, query and headers (through HttpApi's schemas), with its issue limit.
 * - `JobTrace`: the link from a job's span to the request that queued it, for the server's tracing.
 *
 * @packageDocumentation
 */
export * as BoundedDecode from "./internal/Shared/BoundedDecode.js"
/** Links a job's span to the request that queued it. */
export * as JobTrace from "./internal/Jobs/JobTrace.js"
