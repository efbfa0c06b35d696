import { Effect, Option } from "effect"
import { CurrentPrincipal } from "../Auth/Principal.js"
import { RecordNotFound } from "../Catalog/CatalogErrors.js"
import type { ImportReport } from "../Imports/Import.js"
import { ImportService } from "../Imports/ImportService.js"
import { ImportStore } from "../Imports/ImportStore.js"
import { emptyCounts, type JobKind, type JobRecord, render } from "./Job.js"
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
          records: page.map((job) => render(job, counts.get(job.id) ?? emptyCounts)),
          next_cursor: hasMore ? page[page.length - 1]!.id : null,
          has_more: hasMore
        } satisfies JobPage
      })

    const get = (id: string, kind?: JobKind) =>
      Effect.gen(function* () {
        const job = yield* find(id, kind)
        const report = yield* importService.report(job)
        return { job: render(job, report), report } satisfies JobDetail
      })

    const retry = (id: string, kind?: JobKind) => Effect.flatMap(find(id, kind), importService.retry)

    /** Checks that the caller's connection owns the job and holds the scopes its retry needs. */
    const authorizeRetry = (id: string, kind?: JobKind) => Effect.flatMap(find(id, kind), importService.authorizeRetry)

    return { list, get, retry, authorizeRetry } as const
  })
}) {}
