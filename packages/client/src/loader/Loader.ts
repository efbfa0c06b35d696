/**
 * The bulk loader: the initial export of a catalog from files in one call. Its phases, each a module:
 * find the input (Sources) and where the state lives (Paths), connect the keys (Connect), resume from the
 * state file (Resume), scan the input once (Scan), upload the images (Images), then send the records tier
 * by tier (Tiers, Order) in batches of up to 50 through POST /imports (Imports), paced to the rate limit
 * of each key, at most `maxPending` jobs in flight, every job settled from its report (Run, Jobs); at the
 * end, the report of failed records (Report). Each step is logged in the state file first, so a run that
 * was killed continues where it stopped and applies nothing twice.
 */
import { Clock, Effect, type FileSystem, Schedule } from "effect"
import type { PlatformError } from "effect/PlatformError"
import { randomUUID } from "node:crypto"
import { connect } from "./Connect.js"
import { sendImages } from "./Images.js"
import { batchSender } from "./Imports.js"
import * as Jobs from "./Jobs.js"
import { InputError, LoadError } from "./LoadError.js"
import type { LoadOptions, LoadSummary } from "./Options.js"
import { locate } from "./Paths.js"
import { Progress } from "./Progress.js"
import { invalidFailure, write as writeReport } from "./Report.js"
import { resume } from "./Resume.js"
import * as Run from "./Run.js"
import { scanInput } from "./Scan.js"
import { sources } from "./Sources.js"
import * as State from "./State.js"
import { sendTiers } from "./Tiers.js"

export type { LoadOptions, LoadSummary } from "./Options.js"
export { defaultDryRunReportPath, defaultReportPath, defaultStatePath } from "./Paths.js"
export { InputError, LoadError }

/** Checks the options that need no file or server. */
const checked = (options: LoadOptions) =>
  Effect.gen(function* () {
    const maxPending = options.maxPending ?? 10
    if (!Number.isInteger(maxPending) || maxPending < 1 || maxPending > 20)
      return yield* new LoadError({ message: "maxPending must be 1 to 20 (the connection's pending job limit)" })
    if (options.apiKeys.length === 0) return yield* new LoadError({ message: "at least one API key is needed" })
    if (options.dryRun === true && options.retryFailed === true)
      return yield* new LoadError({ message: "--dry-run and --retry-failed do not go together" })
    return { maxPending }
  })

/** Runs a load (see LoadOptions); needs a FileSystem (NodeFileSystem.layer in Node). */
export const load = (
  options: LoadOptions
): Effect.Effect<LoadSummary, LoadError | InputError | PlatformError, FileSystem.FileSystem> =>
  Effect.scoped(
    Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      const dryRun = options.dryRun === true
      const { maxPending } = yield* checked(options)
      const input = yield* sources(options.inputs)
      if (input.length === 0) return yield* new LoadError({ message: "no input files" })
      const { statePath, reportPath } = yield* locate(options, input[0]!.path)

      const { clients, connectionId, rateLimited } = yield* connect(options)
      const target = { url: options.baseUrl, connection_id: connectionId }
      let turn = 0
      const next = () => clients[turn++ % clients.length]!
      const tracker = yield* Jobs.make(next, { pollInterval: options.pollInterval ?? "100 millis" })

      const { state, log, round, finished, selected } = yield* resume({
        statePath,
        target,
        input,
        dryRun,
        retryFailed: options.retryFailed === true
      })
      const progress = new Progress(started, dryRun)
      const report = (now: number) => Effect.sync(() => options.onProgress?.(progress.snapshot(now)))
      const summary = (alreadyFinished: boolean, deferred: number) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const failed = yield* writeReport(reportPath, state.failures.values())
          progress.setPhase("finished")
          yield* report(now)
          return {
            dryRun,
            round,
            alreadyFinished,
            resources: progress.snapshot(now).resources,
            failed,
            deferred,
            rateLimited: rateLimited(),
            reportPath: failed === 0 ? undefined : reportPath,
            statePath,
            elapsedMs: now - started
          } satisfies LoadSummary
        })
      if (finished) return yield* summary(true, 0)

      yield* Effect.repeat(
        Effect.flatMap(Clock.currentTimeMillis, report),
        Schedule.spaced(options.progressInterval ?? "1 second")
      ).pipe(Effect.delay(options.progressInterval ?? "1 second"), Effect.forkScoped)

      const isSelected = (ids: ReadonlyArray<string>) => selected === undefined || ids.some((id) => selected.has(id))
      const scan = yield* scanInput(input, options, isSelected)
      for (const [resource, total] of scan.totals) progress.setTotal(resource, total)
      for (const done of state.done.values()) {
        if (done.round !== round) continue
        for (const [resource, counts] of Object.entries(done.counts)) progress.restore(resource, counts)
      }
      for (const invalid of scan.invalid) {
        const failure = invalidFailure(invalid)
        const id = State.failureId(failure)
        const known = state.failures.get(id)
        if (known?.message !== failure.message || known.line !== failure.line) yield* log({ e: "fail", id, ...failure })
        // Lines that name no resource are settled here and now: they count as started.
        if (invalid.resource === undefined) progress.start("invalid")
        progress.add(invalid.resource ?? "invalid", { failed: 1 }, yield* Clock.currentTimeMillis)
      }

      const salt = dryRun ? `dry-${randomUUID()}` : round === 0 ? "" : `retry-${round}`
      const run = Run.make({
        options,
        dryRun,
        round,
        salt,
        maxPending,
        state,
        log,
        next,
        tracker,
        progress,
        isSelected
      })
      progress.setPhase("media")
      yield* sendImages(run, scan.media)
      progress.setPhase("loading")
      const sender = batchSender(run, scan.declared)
      yield* sendTiers(run, input, scan, sender.send)

      yield* log({ e: "finished", round })
      return yield* summary(false, sender.deferred())
    })
  )
