import { Clock, Effect } from "effect"
import { ImportStore } from "../Imports/ImportStore.js"
import { Transactor } from "../Shared/Transactor.js"

/** How long finished imports are kept, and how much one purge deletes. */
export interface RetentionSettings {
  /** How long a finished import job, its records and its report are kept. */
  readonly retentionMillis: number
  /** Jobs deleted per transaction (default 50: with their records, at most 2,550 rows). */
  readonly jobsPerBatch?: number | undefined
  /** Transactions per run (default 100): a backlog, as on a first run over a long history, takes several runs. */
  readonly batchesPerRun?: number | undefined
}

/**
 * Deletes the import jobs that finished (completed or failed) more than `retentionMillis` ago, with their
 * records and so their reports: a short transaction per batch, and waiting requests take the connection
 * between two. Queued, running and paused jobs stay, as do media jobs (a media item names its job, which
 * answers an upload of the same version again). Returns how many jobs were deleted.
 */
export const purgeFinishedImports = (settings: RetentionSettings) =>
  Effect.gen(function* () {
    const store = yield* ImportStore
    const transactor = yield* Transactor
    const jobsPerBatch = settings.jobsPerBatch ?? 50
    const batchesPerRun = settings.batchesPerRun ?? 100
    const before = new Date((yield* Clock.currentTimeMillis) - settings.retentionMillis).toISOString()
    let removed = 0
    for (let batch = 0; batch < batchesPerRun; batch++) {
      const deleted = yield* transactor.withTransaction(store.purgeFinished(before, jobsPerBatch))
      removed += deleted
      if (deleted < jobsPerBatch) break
      yield* Effect.yieldNow
    }
    return removed
  })
