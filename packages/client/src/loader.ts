/**
 * The bulk loader (`@catalog-sync/client/loader`): the initial catalog export from JSONL and CSV files
 * and image folders, in order, batched, paced, resumable. Node only (it reads files).
 *
 * - Effect: `Loader.load(options)` (needs a FileSystem: `NodeFileSystem.layer`).
 * - Promises: `loadFiles(options)`.
 * - Command line: `catalog-sync-load` (docs/bulk-load.md).
 *
 * Batching, ordering and reading the inputs are the loader's own modules, not exported.
 *
 * @packageDocumentation
 */
import { NodeFileSystem } from "@effect/platform-node"
import { Cause, Effect, Exit } from "effect"
import { load, type LoadOptions, type LoadSummary } from "./loader/Loader.js"

export * as Loader from "./loader/Loader.js"
export * as PlainProgress from "./loader/PlainProgress.js"
/** Progress of a load, as snapshots a caller can render. */
export * as Progress from "./loader/Progress.js"
export type { LoadOptions, LoadSummary } from "./loader/Loader.js"

/** Runs a load with Node's file system; rejects with the LoadError, InputError or file error that stopped it. */
export const loadFiles = (options: LoadOptions): Promise<LoadSummary> =>
  Effect.runPromiseExit(load(options).pipe(Effect.provide(NodeFileSystem.layer))).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    throw Cause.squash(exit.cause)
  })
