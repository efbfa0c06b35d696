/**
 * How the kit runs a property: fast-check's run, and on failure its report (seed, path, the shrunk
 * counterexample, the error) with the options that replay exactly that failure.
 */
import { Effect } from "effect"
import * as fc from "fast-check"

/** The options every kit property takes to replay a failure. */
export interface ReplayOptions {
  /** The seed of the run (and of the catalogs it writes); random when omitted, printed on failure. */
  readonly seed?: number | undefined
  /** fast-check's path of a failure: with `seed` and `only`, runs that counterexample first. */
  readonly path?: string | undefined
  /** Runs only the named property of a suite (a failure names it). */
  readonly only?: string | undefined
}

/** A seed of the options, or a random one. */
export const seedOf = (options: ReplayOptions): number => options.seed ?? Math.floor(Math.random() * 2 ** 31)

/** Whether the property named `name` runs under these options. */
export const runs = (options: ReplayOptions, name: string): boolean =>
  options.only === undefined || options.only === name

/** Asserts `property` with the seed; a failure's message ends with the options that replay it. */
export const assertProperty = <Ts>(
  name: string,
  property: fc.IAsyncPropertyWithHooks<Ts>,
  options: ReplayOptions & {
    readonly seed: number
    readonly numRuns: number
    /** Shrink a failure to a small counterexample (default true). */
    readonly shrink?: boolean | undefined
  }
): Effect.Effect<void> =>
  Effect.promise(async () => {
    const path = options.only === name ? options.path : undefined
    const details = await fc.check(property, {
      seed: options.seed,
      numRuns: options.numRuns,
      endOnFailure: options.shrink === false,
      ...(path === undefined ? {} : { path })
    })
    if (!details.failed) return
    const report = (await fc.asyncDefaultReportMessage(details)) ?? "the property failed"
    throw new Error(
      `${report}\nReplay it with { seed: ${options.seed}, path: ${JSON.stringify(details.counterexamplePath)}, only: ${JSON.stringify(name)} } in the options.`
    )
  })

/** Lets the event loop run its timers and I/O, as a property run begins (see `Probe.breathe`). */
export const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))
