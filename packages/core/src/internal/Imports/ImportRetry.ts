import { Effect } from "effect"
import { CurrentPrincipal } from "../../Auth/Principal.js"
import { type JobState, maxPendingPerConnection, render, retryableStates, type StoredJob } from "../../Jobs/Job.js"
import { JobNotRetryable } from "../../Jobs/JobErrors.js"
import { JobStore } from "../../Jobs/JobStore.js"
import { currentTraceParent } from "../Jobs/JobTrace.js"
import { now } from "../Shared/Now.js"
import { Transactor } from "../../Shared/Transactor.js"
import { report } from "../../Imports/Import.js"
import { countsOf, toResult } from "./ImportResults.js"
import { requireScopes } from "./ImportScopes.js"
import { type ImportItem, ImportStore } from "../../Imports/ImportStore.js"
import { limitReached } from "./ImportSubmit.js"
import { visibleReport } from "./ReportVisibility.js"

/** The states a retry may restart the job from: failed and paused, and completed while records failed. */
const retryableFrom = (job: StoredJob, items: ReadonlyArray<ImportItem>): ReadonlyArray<JobState> =>
  retryableStates.includes(job.state)
    ? retryableStates
    : job.state === "completed" && items.some((item) => item.status === "failed")
      ? ["completed"]
      : []

const notRetryable = (state: JobState) =>
  new JobNotRetryable({
    message:
      state === "completed"
        ? "this import completed with every record applied; there is nothing to retry"
        : `only failed or paused jobs, and completed imports with failed records, can be retried; this job is ${state}`,
    state
  })

/** An import job's report (GET /imports/{id}) and its retry (POST /jobs/{id}/retry). */
export const makeRetry = Effect.gen(function* () {
  const jobs = yield* JobStore
  const store = yield* ImportStore
  const transactor = yield* Transactor

  /** The report of an import job, from its durable per-record results, as the reader may see it. */
  const reportOf = (job: StoredJob) =>
    Effect.zipWith(store.items(job.id), CurrentPrincipal, (items, reader) =>
      visibleReport(report(false, job.run, items.map(toResult)), reader.scopes)
    )

  /**
   * Restarts an import job: a failed or paused one, or (an extension of spec 3) a completed one whose
   * report counts failed records. The records that are not applied run again in a new run, for the
   * retrying key with its scopes, which must cover them. Applied records are never run again.
   */
  const retry = (job: StoredJob) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      const items = yield* store.items(job.id)
      const from = retryableFrom(job, items)
      if (from.length === 0) return yield* notRetryable(job.state)
      const { millis, at } = yield* now
      const scope = { companyId: principal.company.id, connectionId: principal.connectionId }
      const run = job.run + 1
      const requeued = yield* transactor.atomically(
        Effect.gen(function* () {
          const requeue = yield* jobs.requeue(scope, job.id, {
            from,
            run,
            keyId: principal.keyId,
            scopes: Array.from(principal.scopes),
            nowMillis: millis,
            at,
            maxPending: maxPendingPerConnection,
            traceParent: yield* currentTraceParent
          })
          switch (requeue._tag) {
            case "LimitReached":
              return yield* limitReached
            case "NotInState":
              return yield* notRetryable(requeue.state ?? job.state)
            case "Requeued":
              yield* store.resetFailed(job.id, run, at)
              return requeue.job
          }
        })
      )
      return render(requeued, countsOf(yield* store.items(job.id)))
    })

  /** The retry's scope check alone, run before an idempotent replay of the retry too. */
  const authorizeRetry = (job: StoredJob) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      const items = yield* store.items(job.id)
      yield* requireScopes(
        principal,
        items.filter((item) => item.status !== "applied")
      )
    })

  return { report: reportOf, retry, authorizeRetry } as const
})
