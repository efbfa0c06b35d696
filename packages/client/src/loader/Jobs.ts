/**
 * Waits for many jobs at once while spending few requests: one GET /jobs page covers every job the load
 * has in flight (the list is in id order, so the page starts just below the oldest one), a single job is
 * read directly (with its report), and no poll is sent while a batch is waiting to be submitted, since
 * every request counts against the same rate limit.
 */
import { Clock, Deferred, Duration, Effect, Ref, Schedule, type Scope } from "effect"
import type { Client } from "../Client.js"
import type { ClientError } from "../Errors.js"

type JobDetail = Effect.Success<ReturnType<Client["jobs"]["get"]>>
export type JobRecord = JobDetail["job"]
export type ImportReport = NonNullable<JobDetail["report"]>

/** A job that reached an end state; the report when the poll that saw it read one. */
export interface JobEnd {
  readonly job: JobRecord
  readonly report?: ImportReport | null
}

export const endStates: ReadonlySet<string> = new Set(["completed", "failed", "paused"])

/**
 * Whether a job that ended settled every record (applied, or failed on its own: the report says which),
 * whichever end state the server gives such a job (`completed` with failed records counted, or `failed`).
 * Otherwise it could not finish (failed as a whole, paused, records left pending) and is worth a retry.
 */
export const settledEveryRecord = (job: JobRecord): boolean =>
  job.state !== "paused" &&
  job.failure === null &&
  job.counts.pending === 0 &&
  !(job.state === "failed" && job.counts.failed === 0)

/** The uuid just below `id` in the order the server lists jobs (hex digits, as a 128-bit number). */
export const predecessor = (id: string): string | undefined => {
  const digits = id.toLowerCase().replace(/-/g, "").split("")
  let i = digits.length - 1
  while (i >= 0 && digits[i] === "0") digits[i--] = "f"
  if (i < 0) return undefined
  digits[i] = (parseInt(digits[i]!, 16) - 1).toString(16)
  const hex = digits.join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export interface Tracker {
  /** Runs a submission; while any runs, polls wait (up to `maxGap`) so as not to take its request slot. */
  readonly submitting: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Waits until the job reaches completed, failed or paused. */
  readonly await: (jobId: string) => Effect.Effect<JobEnd, ClientError>
}

export interface TrackerOptions {
  readonly pollInterval: Duration.Input
  /** The longest a poll waits for submissions (default 5 s). */
  readonly maxGap?: Duration.Input
}

/** Starts the poller in the scope; `client` picks the client (key) of each poll. */
export const make = (client: () => Client, options: TrackerOptions): Effect.Effect<Tracker, never, Scope.Scope> =>
  Effect.gen(function* () {
    const waiting = new Map<string, Deferred.Deferred<JobEnd, ClientError>>()
    const submitting = yield* Ref.make(0)
    const maxGap = Duration.toMillis(Duration.fromInputUnsafe(options.maxGap ?? "5 seconds"))
    let lastPoll = yield* Clock.currentTimeMillis

    const settle = (job: JobRecord, report?: ImportReport | null) => {
      const deferred = waiting.get(job.id)
      if (deferred === undefined || !endStates.has(job.state)) return Effect.void
      waiting.delete(job.id)
      return Deferred.succeed(deferred, report === undefined ? { job } : { job, report })
    }

    const fail = (id: string, error: ClientError) => {
      const deferred = waiting.get(id)
      if (deferred === undefined) return Effect.void
      waiting.delete(id)
      return Deferred.fail(deferred, error)
    }

    const poll = Effect.gen(function* () {
      const ids = Array.from(waiting.keys())
      if (ids.length === 1) {
        const detail = yield* client().jobs.get(ids[0]!)
        return yield* settle(detail.job, detail.report)
      }
      const oldest = ids.reduce((a, b) => (b < a ? b : a))
      const cursor = predecessor(oldest)
      const page = yield* client().jobs.list({ limit: 100, ...(cursor === undefined ? {} : { cursor }) })
      yield* Effect.forEach(page.records, (job) => settle(job), { discard: true })
      if (page.has_more) return
      // The whole list past the cursor was read: a job it does not hold is gone (a server whose data was reset).
      const listed = new Set(page.records.map((job) => job.id))
      yield* Effect.forEach(
        ids.filter((id) => !listed.has(id) && waiting.has(id)),
        (id) =>
          client()
            .jobs.get(id)
            .pipe(
              Effect.matchEffect({
                onSuccess: (detail) => settle(detail.job, detail.report),
                onFailure: (error) => fail(id, error)
              })
            ),
        { discard: true }
      )
    })

    const tick = Effect.gen(function* () {
      if (waiting.size === 0) return
      const now = yield* Clock.currentTimeMillis
      if ((yield* Ref.get(submitting)) > 0 && now - lastPoll < maxGap) return
      lastPoll = now
      yield* poll.pipe(
        // A poll that fails after the client's retries fails every waiter: the load stops and can resume.
        Effect.catch((error) => Effect.forEach(Array.from(waiting.keys()), (id) => fail(id, error)))
      )
    })

    yield* tick.pipe(Effect.repeat(Schedule.spaced(options.pollInterval)), Effect.forkScoped)

    return {
      submitting: (effect) =>
        Effect.acquireUseRelease(
          Ref.update(submitting, (n) => n + 1),
          () => effect,
          () => Ref.update(submitting, (n) => n - 1)
        ),
      await: (jobId) =>
        Effect.suspend(() => {
          const existing = waiting.get(jobId)
          if (existing !== undefined) return Deferred.await(existing)
          return Effect.flatMap(Deferred.make<JobEnd, ClientError>(), (deferred) => {
            waiting.set(jobId, deferred)
            return Deferred.await(deferred)
          })
        })
    }
  })
