import { Cause, Clock, Duration, Effect, Exit, Option, type Scope } from "effect"
import { type CompanyId, Ids } from "../Shared/Ids.js"
import type { StoredJob } from "./Job.js"
import { LeaseLost } from "./JobErrors.js"
import { JobKinds } from "./JobKinds.js"
import { JobSignal } from "./JobSignal.js"
import { JobStore } from "./JobStore.js"

/** How many workers run, how often they poll, and their lease. */
export interface WorkerSettings {
  /** Worker fibers in this process. */
  readonly workers: number
  /** How long a claim lasts without a heartbeat; a job whose worker died is taken up again after it. */
  readonly leaseMillis: number
  /** How often an idle worker looks for a job. */
  readonly pollMillis: number
}

const iso = (millis: number) => new Date(millis).toISOString()

/**
 * Processes one claimed job while a heartbeat keeps its lease (every third of the lease). A lost lease
 * stops the work; an interruption (shutdown) gives the job back to the queue; an unexpected failure
 * ends the job failed, so that it can be retried.
 */
const work = (
  job: StoredJob,
  workerId: string,
  settings: WorkerSettings,
  restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const jobs = yield* JobStore
    const kinds = yield* JobKinds
    // The claim has just set the lease: the first beat comes a third of a lease later, so a job that ends
    // sooner (most imports) spends no statement, and no commit, on renewing it.
    const heartbeat = Effect.sleep(Duration.millis(Math.max(50, Math.floor(settings.leaseMillis / 3)))).pipe(
      Effect.andThen(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          if (!(yield* jobs.heartbeat(job.id, workerId, now + settings.leaseMillis)))
            return yield* new LeaseLost({ jobId: job.id })
        }).pipe(Effect.catchTag("PersistenceError", (error) => Effect.logWarning("job heartbeat failed", error)))
      ),
      Effect.forever
    )
    const exit = yield* Effect.exit(
      restore(Effect.raceFirst(kinds[job.kind].process(job, workerId, settings.leaseMillis), heartbeat))
    )
    if (Exit.isSuccess(exit)) return
    const failure = exit.cause
    yield* Effect.gen(function* () {
      const at = iso(yield* Clock.currentTimeMillis)
      if (Exit.hasInterrupts(exit)) {
        yield* jobs.release(job.id, workerId, at)
        return
      }
      const error = Cause.findErrorOption(exit.cause)
      const lost = Option.isSome(error) && error.value instanceof LeaseLost
      if (lost)
        return yield* Effect.logWarning("job lease lost; another worker took the job").pipe(
          Effect.annotateLogs("job_id", job.id)
        )
      const busy = Option.isSome(error) && (error.value as { _tag?: string })._tag === "PersistenceError"
      // A database fault is the operator's to watch, not a bug: the job fails retryably.
      yield* (
        busy
          ? Effect.logWarning("job failed: the database was unavailable", failure)
          : Effect.logError("job failed unexpectedly", failure)
      ).pipe(Effect.annotateLogs("job_id", job.id))
      yield* jobs.finish(job.id, workerId, {
        state: "failed",
        failure: busy
          ? { code: "storage_unavailable", message: "the database was unavailable while the job ran; retry the job" }
          : { code: "internal_error", message: "an unexpected error stopped the job; retry the job" },
        at
      })
    }).pipe(
      Effect.catchCause((cause) => Effect.logWarning("could not record the job's end", cause)),
      Effect.uninterruptible
    )
  }).pipe(Effect.annotateLogs("worker_id", workerId))

/** One worker: claim, process, repeat; when the queue is empty, sleeps `pollMillis` or until a job is signalled. */
const worker = (settings: WorkerSettings) =>
  Effect.gen(function* () {
    const jobs = yield* JobStore
    const signal = yield* JobSignal
    const workerId = yield* Effect.flatMap(Ids, (ids) => ids.next)
    // The company of the last job claimed: the next claim prefers another one, so companies take turns.
    let avoidCompany: CompanyId | undefined
    const claimNext = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* jobs.claim({
        workerId,
        nowMillis: now,
        leaseMillis: settings.leaseMillis,
        at: iso(now),
        avoidCompany
      })
      if (Option.isSome(claimed)) avoidCompany = claimed.value.companyId
      return claimed
    }).pipe(
      Effect.catchCause((cause) => Effect.as(Effect.logWarning("job claim failed", cause), Option.none<StoredJob>())),
      // Polls are not traced: an idle worker polls several times a second, and each would be a trace of its
      // own in the operator's backend. A claimed job's run is its own trace (JobTrace).
      Effect.withTracerEnabled(false)
    )
    // A claim and the work it starts form one step that an interruption (shutdown) cannot split: a claim
    // whose statement committed is always either worked on or given back, never left to its lease.
    return yield* Effect.forever(
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(claimNext, (claimed) =>
          Option.match(claimed, {
            onNone: () => restore(Effect.race(Effect.sleep(Duration.millis(settings.pollMillis)), signal.wait)),
            onSome: (job) => work(job, workerId, settings, restore)
          })
        )
      )
    )
  })

/** Starts the job workers in the current scope; closing the scope stops them and gives their jobs back. */
export const runWorkers = (
  settings: WorkerSettings
): Effect.Effect<void, never, Scope.Scope | JobStore | JobKinds | Ids> =>
  Effect.forEach(Array.from({ length: settings.workers }), () => Effect.forkScoped(worker(settings)), { discard: true })
