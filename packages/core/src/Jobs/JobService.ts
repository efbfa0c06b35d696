import { Context, Effect, Layer, Option } from "effect"
import { CurrentPrincipal } from "../Auth/Principal.js"
import type { ImportReport } from "../Imports/Import.js"
import { RecordNotFound } from "../Shared/Errors.js"
import { command, runDirect } from "../Writes/WriteCommand.js"
import { emptyCounts, type JobCounts, type JobKind, type JobRecord, render } from "./Job.js"
import { JobKinds } from "./JobKinds.js"
import { JobSignal } from "./JobSignal.js"
import { JobStore } from "./JobStore.js"

/** A page of jobs. */
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
export class JobService extends Context.Service<JobService>()("@catalog-sync/core/JobService", {
  make: Effect.gen(function* () {
    const jobs = yield* JobStore
    const kinds = yield* JobKinds
    const signal = yield* JobSignal

    const scopeOf = Effect.map(CurrentPrincipal, (principal) => ({
      companyId: principal.company.id,
      connectionId: principal.connectionId
    }))

    const find = (id: string, kind: JobKind | undefined) =>
      Effect.gen(function* () {
        const found = yield* jobs.get(yield* scopeOf, id)
        if (Option.isNone(found) || (kind !== undefined && found.value.kind !== kind)) {
          return yield* new RecordNotFound({
            resource: kind === "import" ? "imports" : "jobs",
            message: `no ${kind ?? "job"} ${id} of this connection`
          })
        }
        return found.value
      })

    const list = (
      kind: JobKind | undefined,
      params: { readonly limit: number; readonly cursor?: string | undefined }
    ) =>
      Effect.gen(function* () {
        const rows = yield* jobs.list(yield* scopeOf, { kind, cursor: params.cursor, limit: params.limit + 1 })
        const page = rows.slice(0, params.limit)
        // One round trip per kind on the page, whatever its size.
        const counts = new Map<string, JobCounts>()
        for (const jobKind of new Set(page.map((job) => job.kind))) {
          for (const [id, count] of yield* kinds[jobKind].counts(page.filter((job) => job.kind === jobKind)))
            counts.set(id, count)
        }
        const hasMore = rows.length > params.limit
        return {
          records: page.map((job) => render(job, counts.get(job.id) ?? emptyCounts)),
          next_cursor: hasMore ? page[page.length - 1]!.id : null,
          has_more: hasMore
        } satisfies JobPage
      })

    const get = (id: string, kind?: JobKind) =>
      Effect.gen(function* () {
        const job = yield* find(id, kind)
        const handler = kinds[job.kind]
        const report = yield* handler.report(job)
        const counts = report ?? (yield* handler.counts([job])).get(job.id) ?? emptyCounts
        return { job: render(job, counts), report } satisfies JobDetail
      })

    /** Checks that the caller's connection owns the job and holds the scopes its retry needs. */
    const authorizeRetry = (id: string, kind?: JobKind) =>
      Effect.flatMap(find(id, kind), (job) => kinds[job.kind].authorizeRetry(job))

    /** POST /jobs/{id}/retry as a write command (see `WriteRunner`): the requeued job wakes an idle worker once committed. */
    const retryCommand = (id: string, kind?: JobKind) =>
      command({
        authorize: authorizeRetry(id, kind),
        run: Effect.flatMap(find(id, kind), (job) => kinds[job.kind].retry(job)),
        afterCommit: signal.notify
      })

    /** Restarts a job of the caller's connection (the records not applied run again). */
    const retry = (id: string, kind?: JobKind) => runDirect(retryCommand(id, kind))

    return { list, get, retry, retryCommand, authorizeRetry } as const
  })
}) {
  /** The service over its ports (the layer Effect 3's `Effect.Service` generated). */
  static readonly Default = Layer.effect(this, this.make)
}
