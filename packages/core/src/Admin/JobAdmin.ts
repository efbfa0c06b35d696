import { Clock, Effect, Option } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { RecordNotFound } from "../Shared/Errors.js"
import { MediaStorageError } from "../Media/MediaErrors.js"
import { MediaStorage } from "../Media/MediaStorage.js"
import type { CompanyId } from "../Shared/Ids.js"
import { Transactor } from "../Shared/Transactor.js"
import type { JobState, StoredJob } from "../Jobs/Job.js"
import { JobStore } from "../Jobs/JobStore.js"

/** A job as an operator sees it: which company and connection it belongs to, and why it stopped. */
export interface AdminJobView {
  readonly id: string
  readonly company_id: string
  readonly connection_id: string
  readonly kind: StoredJob["kind"]
  readonly state: JobState
  readonly run: number
  readonly failure: StoredJob["failure"]
  readonly created_at: string
  readonly updated_at: string
}

const view = (job: StoredJob): AdminJobView => ({
  id: job.id,
  company_id: job.companyId,
  connection_id: job.connectionId,
  kind: job.kind,
  state: job.state,
  run: job.run,
  failure: job.failure,
  created_at: job.createdAt,
  updated_at: job.updatedAt
})

/** What a resume did for one company. */
export interface Resumed {
  readonly company_id: string
  readonly resumed: ReadonlyArray<string>
}

/** Written and removed by the storage check before a resume; never a real media key (those are hashes). */
const probeKey = ".catalog-sync-storage-check"

const pageSize = 500

/**
 * The operator's side of jobs (spec 3: "image processing stops until an operator fixes credentials and
 * resumes"). A storage refusal pauses a company's media jobs, including those of connections whose keys
 * never uploaded the failing image; the operator lists them and resumes them once a storage check with
 * the company's folder passes. A connector may still resume its own with POST /jobs/{id}/retry.
 */
export class JobAdmin extends Effect.Service<JobAdmin>()("@catalog-sync/core/JobAdmin", {
  effect: Effect.gen(function* () {
    const jobs = yield* JobStore
    const accounts = yield* Accounts
    const storage = yield* MediaStorage
    const transactor = yield* Transactor

    const collect = (query: { readonly companyId?: CompanyId | undefined; readonly state: JobState }) =>
      Effect.gen(function* () {
        const all: Array<StoredJob> = []
        let cursor: string | undefined
        for (;;) {
          const page = yield* jobs.listAll({ ...query, cursor, limit: pageSize })
          all.push(...page)
          if (page.length < pageSize) return all
          cursor = page[page.length - 1]!.id
        }
      })

    const requireCompany = (companyId: string) =>
      Effect.flatMap(accounts.getCompany(companyId), (company) =>
        Option.match(company, {
          onNone: () => Effect.fail(new RecordNotFound({ resource: "companies", message: `no company ${companyId}` })),
          onSome: Effect.succeed
        })
      )

    /** Paused jobs of one company, or of every company. */
    const paused = (companyId?: string) =>
      Effect.gen(function* () {
        if (companyId !== undefined) yield* requireCompany(companyId)
        return (yield* collect({ companyId: companyId as CompanyId | undefined, state: "paused" })).map(view)
      })

    /** Writes and removes a small file in the company's folder: the access a paused media job needs. */
    const checkStorage = (folder: string) =>
      storage.put(folder, probeKey, new TextEncoder().encode("storage check")).pipe(
        Effect.zipRight(storage.remove(folder, probeKey)),
        Effect.mapError(
          (error) =>
            new MediaStorageError({
              reason: error.reason,
              message: `the media storage check failed for folder ${folder}: ${error.message}; fix the storage settings (docs/deploy.md) and resume again`
            })
        )
      )

    /**
     * Resumes one company's paused jobs after a storage check: each runs again in its place in the queue,
     * so the company's images still complete in upload order. Nothing is resumed when the check fails.
     */
    const resume = (companyId: string) =>
      Effect.gen(function* () {
        const company = yield* requireCompany(companyId)
        const waiting = yield* collect({ companyId: company.id, state: "paused" })
        if (waiting.length === 0) return { company_id: company.id, resumed: [] } satisfies Resumed
        yield* checkStorage(company.storage_slug)
        const millis = yield* Clock.currentTimeMillis
        const resumed: Array<string> = []
        for (const job of waiting) {
          const requeue = yield* transactor.withTransaction(
            jobs.requeue({ companyId: job.companyId, connectionId: job.connectionId }, job.id, {
              from: ["paused"],
              run: job.run + 1,
              scopes: job.scopes,
              nowMillis: millis,
              at: new Date(millis).toISOString(),
              // Jobs queued behind a paused one cannot run before it: the pending limit must not hold it.
              maxPending: Number.POSITIVE_INFINITY,
              keepPlace: true
            })
          )
          if (requeue._tag === "Requeued") resumed.push(job.id)
        }
        return { company_id: company.id, resumed } satisfies Resumed
      })

    /** Resumes the paused jobs of every company that has some; a company whose check fails is reported, not resumed. */
    const resumeAll = Effect.gen(function* () {
      const companies = Array.from(new Set((yield* collect({ state: "paused" })).map((job) => job.companyId)))
      return yield* Effect.forEach(companies, (companyId) =>
        resume(companyId).pipe(
          Effect.map((result) => ({ ...result, error: null as null | { readonly code: string; readonly message: string } })),
          Effect.catchTag("MediaStorageError", (error) =>
            Effect.succeed({ company_id: companyId as string, resumed: [] as ReadonlyArray<string>, error: { code: error.code, message: error.message } })
          )
        )
      )
    })

    return { paused, resume, resumeAll } as const
  })
}) {}
