/**
 * One run of a load: what its phases (images, record tiers) share, and how they settle what they sent:
 * waiting for a job's end (retrying a job that could not finish), then logging the outcome to the state
 * file before counting it in the progress.
 */
import { Clock, Duration, Effect } from "effect"
import type { Client } from "../Client.js"
import type { ClientError } from "../Errors.js"
import * as Jobs from "./Jobs.js"
import type { LoadOptions } from "./Options.js"
import type { Progress } from "./Progress.js"
import type { Log } from "./Resume.js"
import type * as State from "./State.js"

export type Outcome = "created" | "updated" | "unchanged" | "failed"

/** Counts per resource of records' outcomes. */
export const tally = (outcomes: ReadonlyArray<readonly [string, Outcome]>): Record<string, State.Counts> => {
  const out: Record<string, { created: number; updated: number; unchanged: number; failed: number }> = {}
  for (const [resource, outcome] of outcomes)
    (out[resource] ??= { created: 0, updated: 0, unchanged: 0, failed: 0 })[outcome]++
  return out
}

/** Settles a batch (or image) `key`: its counts per resource, its failed records, and the failures a retry applied. */
export type Settled = (
  key: string,
  counts: Readonly<Record<string, State.Counts>>,
  failures: ReadonlyArray<readonly [string, State.Failure]>,
  applied: ReadonlyArray<ReadonlyArray<string>>
) => Effect.Effect<void>

/** Waits for a job's end; `unfinished` when it could not settle every record even after its retries. */
export type SettleJob = (
  jobId: string,
  retryable?: (job: Jobs.JobRecord) => boolean
) => Effect.Effect<{ readonly end: Jobs.JobEnd; readonly unfinished: boolean }, ClientError>

export interface Run {
  readonly options: LoadOptions
  readonly dryRun: boolean
  /** 0 for the load itself, n for the n-th retry round. */
  readonly round: number
  /** Part of every Idempotency-Key: each retry round and each dry run is a new operation. */
  readonly salt: string
  /** Jobs in flight at once. */
  readonly maxPending: number
  readonly state: State.State
  readonly log: Log
  /** The client of the next request, key after key. */
  readonly next: () => Client
  readonly tracker: Jobs.Tracker
  readonly progress: Progress
  /** Whether a record (by its failure ids) belongs to this run: every record, or a retry round's failures. */
  readonly isSelected: (ids: ReadonlyArray<string>) => boolean
  readonly settled: Settled
  readonly settleJob: SettleJob
}

export type RunBase = Omit<Run, "settled" | "settleJob">

const settledOf =
  (run: RunBase): Settled =>
  (key, counts, failures, applied) =>
    Effect.gen(function* () {
      const oks =
        run.round === 0
          ? []
          : applied.flatMap((ids) =>
              ids.filter((id) => run.state.failures.has(id)).map((id) => ({ e: "ok" as const, id }))
            )
      yield* run.log(...failures.map(([id, failure]) => ({ e: "fail" as const, id, ...failure })), ...oks, {
        e: "done",
        key,
        round: run.round,
        counts
      })
      const now = yield* Clock.currentTimeMillis
      for (const [resource, n] of Object.entries(counts)) run.progress.add(resource, n, now)
    })

/**
 * Waits for a job's end. A job that could not finish (failed as a whole, paused, records left pending)
 * is retried (with a key a rerun repeats), up to maxJobRetries; per-record failures come from the
 * report whether the job ended completed or failed.
 */
const settleJobOf =
  (run: RunBase): SettleJob =>
  (jobId, retryable = () => true) =>
    Effect.gen(function* () {
      for (let retries = 0; ; retries++) {
        const end = yield* run.tracker.await(jobId)
        const unfinished = !Jobs.settledEveryRecord(end.job)
        if (!unfinished && end.job.counts.failed === 0) return { end, unfinished }
        const detail =
          end.report === undefined ? yield* run.next().jobs.get(jobId) : { job: end.job, report: end.report }
        if (!unfinished || !retryable(detail.job) || retries >= (run.options.maxJobRetries ?? 5))
          return { end: detail, unfinished }
        yield* Effect.sleep(Duration.millis(500 * 2 ** retries))
        yield* run
          .next()
          .jobs.retry(jobId, { idempotencyKey: `csr-${jobId}-${detail.job.run}` })
          .pipe(
            Effect.catchIf(
              (e) => e._tag === "CatalogSyncError" && e.code === "job_not_retryable",
              () => Effect.void
            )
          )
      }
    })

export const make = (base: RunBase): Run => ({ ...base, settled: settledOf(base), settleJob: settleJobOf(base) })
