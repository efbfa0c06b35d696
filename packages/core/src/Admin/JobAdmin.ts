import { Clock, Context, Effect, Layer, Option } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { AuditLog, makeRecorder } from "../Audit/AuditLog.js"
import { RecordNotFound } from "../Shared/Errors.js"
import { MediaStorageError } from "../Media/MediaErrors.js"
import { MediaStorage } from "../Media/MediaStorage.js"
import { type CompanyId, Ids } from "../Shared/Ids.js"
import { Transactor } from "../Shared/Transactor.js"
import { type JobKind, type JobState, retryableStates, type StoredJob } from "../Jobs/Job.js"
import { JobNotRetryable } from "../Jobs/JobErrors.js"
import { JobStore } from "../Jobs/JobStore.js"
import { currentTraceParent } from "../internal/Jobs/JobTrace.js"
import { ImportStore } from "../Imports/ImportStore.js"

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

/** One job with what an operator needs to act on it: for an import, its counts and the records that failed. */
export interface AdminJobDetail extends AdminJobView {
  readonly attempts: number
  readonly started_at: string | null
  readonly finished_at: string | null
  readonly report: {
    readonly counts: {
      readonly total: number
      readonly created: number
      readonly updated: number
      readonly unchanged: number
      readonly failed: number
      readonly pending: number
    }
    readonly failed_records: ReadonlyArray<{
      readonly index: number
      readonly resource: string
      readonly external_id: string | null
      readonly error: unknown
    }>
  } | null
}

/** Which jobs `list` shows. */
export interface AdminJobFilter {
  readonly companyId?: string | undefined
  readonly state?: JobState | undefined
  readonly kind?: JobKind | undefined
  readonly limit: number
}

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
 * A retry, and each company's resume, is recorded in the audit log by the current `Actor`, in its
 * write's transaction.
 */
export class JobAdmin extends Context.Service<JobAdmin>()("@catalog-sync/core/JobAdmin", {
  make: Effect.gen(function* () {
    const jobs = yield* JobStore
    const imports = yield* ImportStore
    const accounts = yield* Accounts
    const storage = yield* MediaStorage
    const transactor = yield* Transactor
    const audited = makeRecorder(yield* AuditLog, yield* Ids)

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
        Effect.andThen(storage.remove(folder, probeKey)),
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
     * The requeues and their audit entry are one transaction.
     */
    const resume = (companyId: string) =>
      Effect.gen(function* () {
        const company = yield* requireCompany(companyId)
        const waiting = yield* collect({ companyId: company.id, state: "paused" })
        if (waiting.length === 0) return { company_id: company.id, resumed: [] } satisfies Resumed
        yield* checkStorage(company.storage_slug)
        const millis = yield* Clock.currentTimeMillis
        const requeueAll = Effect.gen(function* () {
          const resumed: Array<string> = []
          for (const job of waiting) {
            const requeue = yield* jobs.requeue({ companyId: job.companyId, connectionId: job.connectionId }, job.id, {
              from: ["paused"],
              run: job.run + 1,
              scopes: job.scopes,
              nowMillis: millis,
              at: new Date(millis).toISOString(),
              // Jobs queued behind a paused one cannot run before it: the pending limit must not hold it.
              maxPending: Number.POSITIVE_INFINITY,
              keepPlace: true,
              traceParent: yield* currentTraceParent
            })
            if (requeue._tag === "Requeued") resumed.push(job.id)
          }
          return resumed
        })
        const resumed = yield* transactor.withTransaction(
          audited(requeueAll, (requeued) => ({
            action: "job.resume",
            company_id: company.id,
            target: company.id,
            details: { resumed: String(requeued.length) }
          }))
        )
        return { company_id: company.id, resumed } satisfies Resumed
      })

    /** Resumes the paused jobs of every company that has some; a company whose check fails is reported, not resumed. */
    const resumeAll = Effect.gen(function* () {
      const companies = Array.from(new Set((yield* collect({ state: "paused" })).map((job) => job.companyId)))
      return yield* Effect.forEach(companies, (companyId) =>
        resume(companyId).pipe(
          Effect.map((result) => ({
            ...result,
            error: null as null | { readonly code: string; readonly message: string }
          })),
          Effect.catchTag("MediaStorageError", (error) =>
            Effect.succeed({
              company_id: companyId,
              resumed: [] as ReadonlyArray<string>,
              error: { code: error.code, message: error.message }
            })
          )
        )
      )
    })

    /** Jobs of every company or one, narrowed by state and kind, oldest first. */
    const list = (filter: AdminJobFilter) =>
      Effect.map(
        jobs.listAll({
          companyId: filter.companyId as CompanyId | undefined,
          state: filter.state,
          kind: filter.kind,
          limit: filter.limit
        }),
        (page) => page.map(view)
      )

    const requireJob = (id: string) =>
      Effect.flatMap(jobs.listAll({ id, limit: 1 }), ([job]) =>
        job === undefined
          ? Effect.fail(new RecordNotFound({ resource: "jobs", message: `no job ${id}` }))
          : Effect.succeed(job)
      )

    /** One job, with an import's counts and failed records (every field: the operator sees what any key could). */
    const show = (id: string) =>
      Effect.gen(function* () {
        const job = yield* requireJob(id)
        const detail = { ...view(job), attempts: job.attempts, started_at: job.startedAt, finished_at: job.finishedAt }
        if (job.kind !== "import") return { ...detail, report: null } satisfies AdminJobDetail
        const items = yield* imports.items(job.id)
        const counts = (yield* imports.counts([job.id])).get(job.id) ?? {
          total: 0,
          created: 0,
          updated: 0,
          unchanged: 0,
          failed: 0,
          pending: 0
        }
        const failed_records = items
          .filter((item) => item.status === "failed")
          .map((item) => ({
            index: item.index,
            resource: item.resource,
            external_id: item.externalId,
            error: item.error
          }))
        return { ...detail, report: { counts, failed_records } } satisfies AdminJobDetail
      })

    /**
     * Runs a job again for the key that queued it (its scopes as stored): a failed or paused job, or an
     * import that completed with failed records (only those run again). The pending limit does not apply:
     * the operator decides. A media job keeps its place in the company's upload order.
     */
    const retry = (id: string) =>
      Effect.gen(function* () {
        const job = yield* requireJob(id)
        const items = job.kind === "import" ? yield* imports.items(job.id) : []
        const from: ReadonlyArray<JobState> =
          job.kind === "import" && job.state === "completed" && items.some((item) => item.status === "failed")
            ? ["completed"]
            : retryableStates
        if (!from.includes(job.state)) {
          return yield* new JobNotRetryable({
            message: `only failed or paused jobs, and imports completed with failed records, can be retried; this job is ${job.state}`,
            state: job.state
          })
        }
        const millis = yield* Clock.currentTimeMillis
        const at = new Date(millis).toISOString()
        const run = job.run + 1
        const write = Effect.gen(function* () {
          const requeue = yield* jobs.requeue({ companyId: job.companyId, connectionId: job.connectionId }, job.id, {
            from,
            run,
            scopes: job.scopes,
            nowMillis: millis,
            at,
            maxPending: Number.POSITIVE_INFINITY,
            keepPlace: job.kind === "media",
            traceParent: yield* currentTraceParent
          })
          if (requeue._tag !== "Requeued") {
            const state = requeue._tag === "NotInState" ? (requeue.state ?? job.state) : job.state
            return yield* new JobNotRetryable({ message: `the job changed meanwhile; it is ${state}`, state })
          }
          if (job.kind === "import") yield* imports.resetFailed(job.id, run, at)
          return requeue.job
        })
        const requeued = yield* transactor.withTransaction(
          audited(write, () => ({
            action: "job.retry",
            company_id: job.companyId,
            target: job.id,
            details: { kind: job.kind, connection_id: job.connectionId, run: String(run), from_state: job.state }
          }))
        )
        return view(requeued)
      })

    return { paused, resume, resumeAll, list, show, retry } as const
  })
}) {
  /** The service over its ports (the layer Effect 3's `Effect.Service` generated). */
  static readonly Default = Layer.effect(this, this.make)
}
