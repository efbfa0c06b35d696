import { Data, Effect, Schedule } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import { CurrentPrincipal } from "../../Auth/Principal.js"
import type { JobFailure, StoredJob } from "../../Jobs/Job.js"
import { jobAccess } from "../Jobs/JobAccess.js"
import { LeaseLost } from "../../Jobs/JobErrors.js"
import { JobStore } from "../../Jobs/JobStore.js"
import type { PersistenceError } from "../../Shared/Errors.js"
import { now } from "../Shared/Now.js"
import { Transactor } from "../../Shared/Transactor.js"
import { type Attempt, runPassesInBatches } from "./ImportRunner.js"
import { type ImportItem, ImportStore } from "../../Imports/ImportStore.js"
import { makeBatchWrites } from "./BatchWrites.js"
import { decodedOnce } from "./RecordErrors.js"
import { boundReportErrors } from "./ReportBounds.js"

/** Ends an import run whose access stopped (spec 5.4) before its next batch. */
class AccessStopped extends Data.TaggedError("AccessStopped")<{ readonly failure: JobFailure }> {}

const isRetryable = (error: unknown): boolean =>
  typeof error === "object" &&
  error !== null &&
  (error as { _tag?: unknown })._tag === "PersistenceError" &&
  (error as PersistenceError).retryable

/** A busy database while a batch is written is retried (the whole batch) a few times before the run gives up. */
const busyRetry = Schedule.max([Schedule.exponential("50 millis"), Schedule.recurs(4)])

/**
 * Records a worker applies in one transaction: a full import body. Set-based, a batch's statements are
 * the same for 1 record or 50, so a batch of 50 holds the connection for less time than 25 did record by
 * record; halving the batches per job took the SQLite import from ~2,400 to ~3,250 records/s.
 */
export const recordsPerTransaction = 50

/** The import job (kind `import`): a worker applies its records, a batch per transaction. */
export const makeImportJob = Effect.gen(function* () {
  const jobs = yield* JobStore
  const store = yield* ImportStore
  const transactor = yield* Transactor
  const accounts = yield* Accounts
  const batches = yield* makeBatchWrites

  /**
   * Processes a claimed import job for `workerId`: every record not applied yet, over several passes.
   * Records commit in batches (`recordsPerTransaction`) with their durable results after one lease
   * check, so a worker that lost its lease writes nothing more, and records applied before a crash are
   * skipped when the job is taken up again.
   * A job whose passes finish ends completed, its report counting the records that failed (spec 3); it
   * ends failed only when it cannot finish: its access stopped (checked at the start and before every
   * batch, so nothing more is written), or a fault the worker could not get past.
   */
  const process = (job: StoredJob, workerId: string, leaseMillis: number) =>
    Effect.gen(function* () {
      const finish = (failure: JobFailure | null) =>
        Effect.flatMap(now, ({ at }) =>
          jobs.finish(job.id, workerId, { state: failure === null ? "completed" : "failed", failure, at })
        )
      const currentAccess = Effect.flatMap(Effect.provideService(jobAccess(job), Accounts, accounts), (access) =>
        access._tag === "Allowed"
          ? Effect.succeed(access.principal)
          : Effect.fail(new AccessStopped({ failure: access.failure }))
      )
      const decoded = decodedOnce()
      const items = yield* store.items(job.id)
      const waiting = items.filter((item) => item.status !== "applied")
      const holdLease = Effect.gen(function* () {
        const { millis } = yield* now
        if (!(yield* jobs.heartbeat(job.id, workerId, millis + leaseMillis)))
          return yield* new LeaseLost({ jobId: job.id })
      })
      // Record by record: each record's upsert is a savepoint of the batch's transaction (a failing
      // record rolls back its own writes only) and its applied mark commits with it.
      const applyPerRecord = (batch: ReadonlyArray<ImportItem>) =>
        transactor.withTransaction(
          Effect.andThen(
            holdLease,
            batches.perRecord(batch, decoded, (item, { outcome, recordId }) =>
              Effect.gen(function* () {
                const { at } = yield* now
                if (!(yield* store.markApplied(job.id, item.index, { outcome, recordId, run: job.run, at }))) {
                  // Applied by another worker that held the job before: roll the whole batch back.
                  return yield* new LeaseLost({ jobId: job.id })
                }
                return { _tag: "Applied", outcome, recordId } satisfies Attempt
              })
            )
          )
        )
      // Set-based (`BatchWrites`), with the batch's applied marks in one statement; a record that failed
      // after writing, or a conflict when flushing, abandons this for `applyPerRecord` after the rollback.
      const applySetBased = (batch: ReadonlyArray<ImportItem>) =>
        transactor.withTransaction(
          Effect.gen(function* () {
            yield* holdLease
            const attempts = yield* batches.setBased(batch, decoded)
            const applied = batch.flatMap((item, i) => {
              const result = attempts[i]!
              return result._tag === "Applied"
                ? [{ index: item.index, outcome: result.outcome, recordId: result.recordId }]
                : []
            })
            if (applied.length > 0) {
              const { at } = yield* now
              // Fewer marked than applied: another worker that held the job before applied some.
              if ((yield* store.markAppliedMany(job.id, applied, { run: job.run, at })) !== applied.length)
                return yield* new LeaseLost({ jobId: job.id })
            }
            return attempts
          })
        )
      const applyBatch = (batch: ReadonlyArray<ImportItem>) =>
        applySetBased(batch).pipe(
          Effect.catchTag("WriteBehindAbandoned", () => applyPerRecord(batch)),
          Effect.retry({ schedule: busyRetry, while: isRetryable })
        )
      // Each batch acts as the job's principal as it is now: a revoked key or changed grants take effect at once.
      const passes = yield* Effect.result(
        runPassesInBatches(waiting, recordsPerTransaction, (batch) =>
          Effect.flatMap(currentAccess, (principal) =>
            Effect.provideService(applyBatch(batch), CurrentPrincipal, principal)
          )
        )
      )
      if (passes._tag === "Failure") {
        if (passes.failure instanceof AccessStopped) return yield* finish(passes.failure.failure)
        return yield* Effect.fail(passes.failure)
      }
      const { results } = passes.success
      // In index order, as the report lists them: its error budget goes to the first ones.
      const failures = boundReportErrors(
        Array.from(results)
          .flatMap(([index, result]) => (result._tag === "Failed" ? [{ index, error: result.error }] : []))
          .sort((a, b) => a.index - b.index)
      )
      if (failures.length > 0) {
        const { at } = yield* now
        yield* transactor.withTransaction(
          Effect.andThen(
            holdLease,
            Effect.forEach(
              failures,
              ({ index, error }) => store.markFailed(job.id, index, { error, run: job.run, at }),
              { discard: true }
            )
          )
        )
      }
      return yield* finish(null)
    })

  return { process } as const
})
