/**
 * Where a load keeps its files: the state file and the failure report live next to the input (the folder
 * of the first input file), or in `stateDir`, never in whatever folder the command was started from.
 */
import { Effect, FileSystem } from "effect"
import { dirname, join } from "node:path"
import { LoadError } from "./LoadError.js"

const prefix = "catalog-sync-load."

/** Default file of the loader's resumable state. */
export const defaultStatePath = `${prefix}state.jsonl`
/** Default file of the records the server refused. */
export const defaultReportPath = `${prefix}failures.jsonl`
/** Default file of a dry run's findings. */
export const defaultDryRunReportPath = `${prefix}dry-run.jsonl`

/** The loader's own files (state, reports) are never input, even in a folder given as input. */
export const isOwnFile = (name: string): boolean => name.startsWith(prefix)

export interface Paths {
  /** Undefined for a dry run, which keeps its state in memory. */
  readonly statePath: string | undefined
  readonly reportPath: string
}

/** The state file and the report of a load (see LoadOptions) whose first input file is `firstInput`. */
export const locate = (
  options: {
    readonly dryRun?: boolean
    readonly stateDir?: string
    readonly statePath?: string
    readonly reportPath?: string
  },
  firstInput: string
): Effect.Effect<Paths, LoadError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const dryRun = options.dryRun === true
    const folder = options.stateDir ?? dirname(firstInput)
    if (options.stateDir !== undefined && (options.statePath === undefined || options.reportPath === undefined)) {
      const fs = yield* FileSystem.FileSystem
      yield* fs
        .makeDirectory(options.stateDir, { recursive: true })
        .pipe(
          Effect.mapError(
            (error) => new LoadError({ message: `cannot create the state folder ${options.stateDir}`, cause: error })
          )
        )
    }
    return {
      statePath: dryRun ? undefined : (options.statePath ?? join(folder, defaultStatePath)),
      reportPath: options.reportPath ?? join(folder, dryRun ? defaultDryRunReportPath : defaultReportPath)
    }
  })
