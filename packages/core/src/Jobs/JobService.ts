import { Clock, Effect, Option } from "effect"
import { CurrentPrincipal } from "../Auth/Principal.js"
import { RecordNotFound, ScopeDenied } from "../Catalog/CatalogErrors.js"
import { mediaCounts } from "../Media/MediaService.js"
import { Transactor } from "../Shared/Transactor.js"
import type { ImportReport } from "../Imports/Import.js"
import { ImportService } from "../Imports/ImportService.js"
import { ImportStore } from "../Imports/ImportStore.js"
import { emptyCounts, type JobKind, type JobRecord, maxPendingPerConnection, render, retryableStates, type StoredJob } from "./Job.js"
import { JobLimitReached, JobNotRetryable } from "./JobErrors.js"
import { JobStore } from "./JobStore.js"

export interface JobPage {
  readonly records: ReadonlyArray<JobRecord>
  readonly next_cursor: string | null
  readonly has_more: boolean
}

/** One job and, for imports, its report. */
export interface JobDetail {
  readonly job: JobRecord
  readonly report: ImportReport | null
}

/**
 * Reading and retrying jobs (GET /jobs, /imports, POST …/retry). A connection sees its own jobs only:
 * another connection's job is not found. `kind` narrows to one kind (/imports lists import jobs).
 */
export class JobService extends Effect.Service<JobService>()("@catalog-sync/core/JobService", {
  effect: Effect.gen(function* () {
    const jobs = yield* JobStore
    const imports = yield* ImportStore
    const importService = yield* ImportService
    const transactor = yield* Transactor

    const scopeOf = Effect.map(CurrentPrincipal, (principal) => ({ companyId: principal.company.id, connectionId: principal.connectionId }))

    const find = (id: string, kind: JobKind | undefined) =>
      Effect.gen(function* () {
        const found = yield* jobs.get(yield* scopeOf, id)
        if (Option.isNone(found) || (kind !== undefined && found.value.kind !== kind)) {
          return yield* new RecordNotFound({ resource: kind === "import" ? "imports" : "jobs", message: `no ${kind ?? "job"} ${id} of this connection` })
        }
        return found.value
      })

    const list = (kind: JobKind | undefined, params: { readonly limit: number; readonly cursor?: string | undefined }) =>
      Effect.gen(function* () {
        const rows = yield* jobs.list(yield* scopeOf, { kind, cursor: params.cursor, limit: params.limit + 1 })
        const page = rows.slice(0, params.limit)
        const counts = yield* imports.counts(page.map((job) => job.id))
        const hasMore = rows.length > params.limit
        return {
          records: page.map((job) => render(job, job.kind === "media" ? mediaCounts(job) : (counts.get(job.id) ?? emptyCounts))),
          next_cursor: hasMore ? page[page.length - 1]!.id : null,
          has_more: hasMore
        } satisfies JobPage
      })

    const get = (id: string, kind?: JobKind) =>
      Effect.gen(function* () {
        const job = yield* find(id, kind)
        if (job.kind === "media") return { job: render(job, mediaCounts(job)), report: null } satisfies JobDetail
        const report = yield* importService.report(job)
        return { job: render(job, report), report } satisfies JobDetail
      })

    const requireMediaWrite = Effect.flatMap(CurrentPrincipal, (principal) =>
      principal.scopes.has("media:write")
        ? Effect.void
        : Effect.fail(new ScopeDenied({ message: "retrying a media job needs the scope media:write", required: ["media:write"] }))
    )

    /**
     * A media job runs again as it was (its image is still staged); it needs media:write. It keeps its
     * place in the queue, so the company's images still complete in upload order. A paused job is not
     * held to the pending limit: the jobs queued behind it count toward that limit and cannot run
     * before it, so refusing it would leave the company's processing stopped for good.
     */
    const retryMedia = (job: StoredJob) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        yield* requireMediaWrite
        const millis = yield* Clock.currentTimeMillis
        const paused = job.state === "paused"
        const requeue = yield* transactor.withTransaction(
          jobs.requeue({ companyId: principal.company.id, connectionId: principal.connectionId }, job.id, {
            // Only the state that was read: the limit exemption holds for a job that is still paused.
            from: retryableStates.includes(job.state) ? [job.state] : retryableStates,
            run: job.run + 1,
            keyId: principal.keyId,
            scopes: Array.from(principal.scopes),
            nowMillis: millis,
            at: new Date(millis).toISOString(),
            maxPending: paused ? Number.POSITIVE_INFINITY : maxPendingPerConnection,
            keepPlace: true
          })
        )
        switch (requeue._tag) {
          case "LimitReached":
            return yield* new JobLimitReached({
              message: `this connection has ${maxPendingPerConnection} pending (queued or running) jobs; retry when one has finished`,
              limit: maxPendingPerConnection,
              retry_after: 5
            })
          case "NotInState":
            return yield* new JobNotRetryable({ message: `only failed or paused jobs can be retried; this job is ${requeue.state ?? job.state}`, state: requeue.state ?? job.state })
          case "Requeued":
            return render(requeue.job, mediaCounts(requeue.job))
        }
      })

    const retry = (id: string, kind?: JobKind) =>
      Effect.flatMap(find(id, kind), (job) => (job.kind === "media" ? retryMedia(job) : importService.retry(job)))

    /** Checks that the caller's connection owns the job and holds the scopes its retry needs. */
    const authorizeRetry = (id: string, kind?: JobKind) =>
      Effect.flatMap(find(id, kind), (job) => (job.kind === "media" ? requireMediaWrite : importService.authorizeRetry(job)))

    return { list, get, retry, authorizeRetry } as const
  })
}) {}
