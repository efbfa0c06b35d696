import { Context, Effect, Layer, Option } from "effect"
import type { ImportCounts, ImportItem } from "../Imports/ImportStore.js"
import { ImportStore } from "../Imports/ImportStore.js"
import { pendingStates, type StoredJob } from "../Jobs/Job.js"
import { JobStore, type JobScope } from "../Jobs/JobStore.js"

const inScope = (job: StoredJob, scope: JobScope) =>
  job.companyId === scope.companyId && job.connectionId === scope.connectionId

/**
 * Jobs and import records in memory, with the claim and lease rules of the SQL stores. Their state is
 * not part of the in-memory Transactor's snapshot: a rolled-back transaction keeps what these wrote.
 * The use cases write them last in each transaction, so for domain tests that makes no difference.
 */
export const make = Effect.sync(() => {
  const jobs = new Map<string, StoredJob>()
  const items = new Map<string, Array<ImportItem>>()
  // Queue order: a job's place at insert or requeue, since queuedAt can tie within a millisecond.
  const place = new Map<string, number>()
  let counter = 0

  const pendingOf = (companyId: string, connectionId: string) =>
    Array.from(jobs.values()).filter(
      (j) => j.companyId === companyId && j.connectionId === connectionId && pendingStates.includes(j.state)
    ).length
  const leased = (job: StoredJob, now: number) =>
    job.state === "running" && job.leaseUntil !== null && job.leaseUntil > now
  const owned = (id: string, workerId: string) => {
    const job = jobs.get(id)
    return job !== undefined && job.state === "running" && job.leaseOwner === workerId ? job : undefined
  }

  const jobStore = JobStore.of({
    insert: (job, maxPending) =>
      Effect.sync(() => {
        if (pendingOf(job.companyId, job.connectionId) >= maxPending) return false
        jobs.set(job.id, job)
        place.set(job.id, ++counter)
        return true
      }),
    get: (scope, id) =>
      Effect.sync(() => Option.fromNullishOr(jobs.get(id)).pipe(Option.filter((job) => inScope(job, scope)))),
    list: (scope, query) =>
      Effect.sync(() =>
        Array.from(jobs.values())
          .filter(
            (job) =>
              inScope(job, scope) &&
              (query.kind === undefined || job.kind === query.kind) &&
              (query.cursor === undefined || job.id > query.cursor)
          )
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .slice(0, query.limit)
      ),
    listAll: (query) =>
      Effect.sync(() =>
        Array.from(jobs.values())
          .filter(
            (job) =>
              (query.companyId === undefined || job.companyId === query.companyId) &&
              (query.state === undefined || job.state === query.state) &&
              (query.kind === undefined || job.kind === query.kind) &&
              (query.id === undefined || job.id === query.id) &&
              (query.ids === undefined || query.ids.includes(job.id)) &&
              (query.cursor === undefined || job.id > query.cursor)
          )
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .slice(0, query.limit)
      ),
    requeue: (scope, id, request) =>
      Effect.sync(() => {
        const job = jobs.get(id)
        if (job === undefined || !inScope(job, scope)) return { _tag: "NotInState", state: null } as const
        if (!request.from.includes(job.state)) return { _tag: "NotInState", state: job.state } as const
        if (pendingOf(job.companyId, job.connectionId) >= request.maxPending) return { _tag: "LimitReached" } as const
        const updated: StoredJob = {
          ...job,
          state: "queued",
          run: request.run,
          keyId: request.keyId ?? job.keyId,
          scopes: request.scopes,
          queuedAt: request.nowMillis,
          leaseOwner: null,
          leaseUntil: null,
          failure: null,
          finishedAt: null,
          updatedAt: request.at,
          traceParent: request.traceParent
        }
        jobs.set(id, updated)
        if (request.keepPlace !== true) place.set(id, ++counter)
        return { _tag: "Requeued", job: updated } as const
      }),
    claim: (request) =>
      Effect.sync(() => {
        const all = Array.from(jobs.values())
        const candidates = all
          .filter((job) => job.state === "queued" || (job.state === "running" && !leased(job, request.nowMillis)))
          .filter(
            (job) =>
              !all.some(
                (other) =>
                  other.id !== job.id && other.connectionId === job.connectionId && leased(other, request.nowMillis)
              )
          )
          // Media jobs of a company: one at a time, in queue order, none while one is paused.
          .filter(
            (job) =>
              job.kind !== "media" ||
              !all.some(
                (other) =>
                  other.id !== job.id &&
                  other.kind === "media" &&
                  other.companyId === job.companyId &&
                  (leased(other, request.nowMillis) ||
                    other.state === "paused" ||
                    ((other.state === "queued" || other.state === "running") &&
                      place.get(other.id)! < place.get(job.id)!))
              )
          )
          .sort((a, b) => place.get(a.id)! - place.get(b.id)!)
        // By preference: another company than the worker's last one with nothing running, any company with
        // nothing running, any company (the order of JobStore.claim).
        const idle = (job: StoredJob) =>
          !all.some((other) => other.companyId === job.companyId && leased(other, request.nowMillis))
        const candidate =
          candidates.find((job) => job.companyId !== request.avoidCompany && idle(job)) ??
          candidates.find(idle) ??
          candidates[0]
        if (candidate === undefined) return Option.none()
        const claimed: StoredJob = {
          ...candidate,
          state: "running",
          leaseOwner: request.workerId,
          leaseUntil: request.nowMillis + request.leaseMillis,
          attempts: candidate.attempts + 1,
          startedAt: candidate.startedAt ?? request.at,
          updatedAt: request.at
        }
        jobs.set(claimed.id, claimed)
        return Option.some(claimed)
      }),
    heartbeat: (id, workerId, leaseUntil) =>
      Effect.sync(() => {
        const job = owned(id, workerId)
        if (job === undefined) return false
        jobs.set(id, { ...job, leaseUntil })
        return true
      }),
    finish: (id, workerId, result) =>
      Effect.sync(() => {
        const job = owned(id, workerId)
        if (job === undefined) return false
        jobs.set(id, {
          ...job,
          state: result.state,
          failure: result.failure,
          finishedAt: result.at,
          updatedAt: result.at,
          leaseOwner: null,
          leaseUntil: null
        })
        return true
      }),
    release: (id, workerId, at) =>
      Effect.sync(() => {
        const job = owned(id, workerId)
        if (job === undefined) return false
        jobs.set(id, { ...job, state: "queued", leaseOwner: null, leaseUntil: null, updatedAt: at })
        return true
      }),
    releaseAll: (at) =>
      Effect.sync(() => {
        let released = 0
        for (const job of jobs.values()) {
          if (job.state !== "running") continue
          jobs.set(job.id, { ...job, state: "queued", leaseOwner: null, leaseUntil: null, updatedAt: at })
          released++
        }
        return released
      })
  })

  const update = (jobId: string, index: number, f: (item: ImportItem) => ImportItem | undefined): boolean => {
    const list = items.get(jobId) ?? []
    const at = list.findIndex((item) => item.index === index)
    const next = at < 0 ? undefined : f(list[at]!)
    if (next === undefined) return false
    list[at] = next
    return true
  }

  const markApplied: ImportStore["Service"]["markApplied"] = (jobId, index, result) =>
    Effect.sync(() =>
      update(jobId, index, (item) =>
        item.status === "applied"
          ? undefined
          : {
              ...item,
              status: "applied",
              outcome: result.outcome,
              recordId: result.recordId,
              error: null,
              run: result.run,
              updatedAt: result.at
            }
      )
    )

  const importStore = ImportStore.of({
    insertItems: (newItems) =>
      Effect.sync(() => {
        for (const item of newItems) items.set(item.jobId, [...(items.get(item.jobId) ?? []), item])
      }),
    items: (jobId) => Effect.sync(() => [...(items.get(jobId) ?? [])].sort((a, b) => a.index - b.index)),
    markApplied,
    markAppliedMany: (jobId, results, { at, run }) =>
      Effect.reduce(
        results,
        () => 0,
        (marked, result) =>
          Effect.map(markApplied(jobId, result.index, { ...result, run, at }), (done) => (done ? marked + 1 : marked))
      ),
    markFailed: (jobId, index, result) =>
      Effect.sync(() => {
        update(jobId, index, (item) =>
          item.status === "applied"
            ? undefined
            : {
                ...item,
                status: "failed",
                outcome: null,
                recordId: null,
                error: result.error,
                run: result.run,
                updatedAt: result.at
              }
        )
      }),
    resetFailed: (jobId, run, at) =>
      Effect.sync(() =>
        (items.get(jobId) ?? []).flatMap((item) =>
          update(jobId, item.index, (i) =>
            i.status === "applied" ? undefined : { ...i, status: "pending", error: null, run, updatedAt: at }
          )
            ? [item.index]
            : []
        )
      ),
    purgeFinished: (finishedBefore, limit) =>
      Effect.sync(() => {
        const finished = Array.from(jobs.values())
          .filter(
            (job) =>
              job.kind === "import" &&
              (job.state === "completed" || job.state === "failed") &&
              job.finishedAt !== null &&
              job.finishedAt < finishedBefore
          )
          .sort((a, b) => (a.finishedAt! < b.finishedAt! ? -1 : a.finishedAt! > b.finishedAt! ? 1 : 0))
          .slice(0, limit)
        for (const job of finished) {
          jobs.delete(job.id)
          items.delete(job.id)
          place.delete(job.id)
        }
        return finished.length
      }),
    counts: (jobIds) =>
      Effect.sync(() => {
        const out = new Map<string, ImportCounts>()
        for (const jobId of jobIds) {
          const list = items.get(jobId)
          if (list === undefined) continue
          out.set(jobId, {
            total: list.length,
            created: list.filter((i) => i.outcome === "created").length,
            updated: list.filter((i) => i.outcome === "updated").length,
            unchanged: list.filter((i) => i.outcome === "unchanged").length,
            failed: list.filter((i) => i.status === "failed").length,
            pending: list.filter((i) => i.status === "pending").length
          })
        }
        return out
      })
  })

  return { jobStore, importStore } as const
})

/** JobStore and ImportStore in memory, sharing one state. */
export const layer: Layer.Layer<JobStore | ImportStore> = Layer.effectContext(
  Effect.map(make, (stores) =>
    Context.make(JobStore, stores.jobStore).pipe(Context.add(ImportStore, stores.importStore))
  )
)
