import { Clock, Data, Effect, Option, Schedule } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { settingsOf } from "../Auth/Company.js"
import { CurrentPrincipal, type Principal } from "../Auth/Principal.js"
import { bodyParts, missingScopes, requiredWriteScopes } from "../Catalog/Access.js"
import { type PersistenceError, ScopeDenied } from "../Catalog/CatalogErrors.js"
import { CatalogService } from "../Catalog/CatalogService.js"
import { UpsertMode } from "../Catalog/CommonFields.js"
import { decodeUpsert } from "../Catalog/Decode.js"
import { definitions } from "../Catalog/Resources.js"
import { maxPendingPerConnection, queued, render, retryableStates, type JobFailure, type JobRecord, type StoredJob } from "../Jobs/Job.js"
import { JobLimitReached, JobNotRetryable, LeaseLost } from "../Jobs/JobErrors.js"
import { JobStore } from "../Jobs/JobStore.js"
import { Ids } from "../Shared/Ids.js"
import { effective, type Scope } from "../Shared/Scope.js"
import { Transactor } from "../Shared/Transactor.js"
import { type ImportBody, type ImportReport, type RecordResult, report } from "./Import.js"
import { type ImportCounts, type ImportItem, ImportStore } from "./ImportStore.js"
import { type Attempt, type PlannedRecord, runPasses, runPassesInBatches } from "./ImportRunner.js"
import { isRecordFailure, isUnresolvedReference, type RecordFailure, toRecordError } from "./RecordErrors.js"

/** What POST /imports answers: a dry run's report, or the queued job. */
export type Submitted =
  | { readonly _tag: "DryRun"; readonly report: ImportReport }
  | { readonly _tag: "Queued"; readonly job: JobRecord }

/** Seconds a client waits before submitting again when its connection has 20 pending jobs. */
export const jobLimitRetryAfterSeconds = 5

const limitReached = new JobLimitReached({
  message: `this connection has ${maxPendingPerConnection} pending (queued or running) jobs; retry when one has finished`,
  limit: maxPendingPerConnection,
  retry_after: jobLimitRetryAfterSeconds
})

/** Carries a dry run's results out of the transaction it rolls back. */
class DryRunRollback extends Data.TaggedError("DryRunRollback")<{ readonly results: ReadonlyArray<RecordResult> }> {}

const modeOf = (body: Readonly<Record<string, unknown>>): UpsertMode =>
  UpsertMode.literals.includes(body.mode as UpsertMode) ? (body.mode as UpsertMode) : "catalog"

/**
 * The write scopes the records need whatever they turn out to be (creates in combined mode need
 * catalog:write as well, which their own upsert checks). Computed on the bodies as sent, so that a body
 * that will fail its schema still asks for the scopes of its mode.
 */
export const scopesFor = (records: ReadonlyArray<PlannedRecord>): ReadonlyArray<Scope> => {
  const needed = new Set<Scope>()
  for (const record of records) {
    for (const scope of requiredWriteScopes(modeOf(record.body), bodyParts(definitions[record.resource], record.body), false)) {
      needed.add(scope)
    }
  }
  return Array.from(needed)
}

const requireScopes = (principal: Principal, records: ReadonlyArray<PlannedRecord>) => {
  const missing = missingScopes(scopesFor(records), principal.scopes)
  return missing.length === 0
    ? Effect.void
    : Effect.fail(new ScopeDenied({ message: `the records of this import need the scopes ${missing.join(", ")}`, required: missing }))
}

const externalIdOf = (body: Readonly<Record<string, unknown>>): string | null =>
  typeof body.external_id === "string" ? body.external_id : null

const toResult = (item: ImportItem): RecordResult => ({
  index: item.index,
  resource: item.resource,
  external_id: item.externalId,
  status: item.status,
  outcome: item.outcome,
  id: item.recordId,
  error: item.error,
  run: item.run
})

const isRetryable = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "PersistenceError" && (error as PersistenceError).retryable

/** A busy database while a batch is written is retried (the whole batch) a few times before the run gives up. */
const busyRetry = Schedule.exponential("50 millis").pipe(Schedule.intersect(Schedule.recurs(4)))

/**
 * Records a worker applies in one transaction. Per-record transactions paid BEGIN/COMMIT, a lease check
 * and a WAL commit for every record; at 25 those are a few percent of a batch's statements, while a
 * full import body (50) still commits in two steps, so the connection is not held for a whole job.
 */
export const recordsPerTransaction = 25

/** The counts of a job's report. */
export const countsOf = (items: ReadonlyArray<ImportItem>): ImportCounts => {
  const results = report(false, 1, items.map(toResult))
  return { total: results.total, created: results.created, updated: results.updated, unchanged: results.unchanged, failed: results.failed, pending: results.pending }
}

/**
 * Batch imports (POST /imports): a dry run applies every record in a transaction that it rolls back and
 * answers with the report; otherwise the records are stored with a queued job that a worker processes
 * (`process`), a batch of records per transaction together with their durable results.
 */
export class ImportService extends Effect.Service<ImportService>()("@catalog-sync/core/ImportService", {
  effect: Effect.gen(function* () {
    const catalog = yield* CatalogService
    const jobs = yield* JobStore
    const store = yield* ImportStore
    const transactor = yield* Transactor
    const accounts = yield* Accounts
    const ids = yield* Ids

    const now = Effect.map(Clock.currentTimeMillis, (millis) => ({ millis, at: new Date(millis).toISOString() }))

    /** Decodes and upserts one record; the failures that concern this record only become its result. */
    const attempt = <E, R>(record: PlannedRecord, write: (decoded: Readonly<Record<string, unknown>>) => Effect.Effect<Attempt, E, R>) =>
      decodeUpsert(record.resource, record.body).pipe(
        Effect.flatMap(write),
        Effect.catchAll((error) =>
          isRecordFailure(error)
            ? Effect.succeed<Attempt>({ _tag: "Failed", error: toRecordError(record.index, error), unresolved: isUnresolvedReference(error) })
            : Effect.fail(error as Exclude<E, RecordFailure>)
        )
      )

    const dryRun = (records: ReadonlyArray<PlannedRecord>) =>
      transactor
        .withTransaction(
          runPasses(records, (record) =>
            attempt(record, (decoded) =>
              Effect.map(catalog.upsert(record.resource, decoded), (result): Attempt => ({
                _tag: "Applied",
                outcome: result.outcome,
                // A dry run's new records do not survive it: no id to show.
                recordId: result.outcome === "created" ? "" : (result.record.id as string)
              }))
            )
          ).pipe(
            Effect.flatMap(({ results }) =>
              Effect.fail(
                new DryRunRollback({
                  results: records.map((record): RecordResult => {
                    const result = results.get(record.index)!
                    return {
                      index: record.index,
                      resource: record.resource,
                      external_id: externalIdOf(record.body),
                      status: result._tag === "Applied" ? "applied" : "failed",
                      outcome: result._tag === "Applied" ? result.outcome : null,
                      id: result._tag === "Applied" && result.recordId !== "" ? result.recordId : null,
                      error: result._tag === "Failed" ? result.error : null,
                      run: 1
                    }
                  })
                })
              )
            )
          )
        )
        .pipe(
          Effect.catchIf(
            (error): error is DryRunRollback => error instanceof DryRunRollback,
            (rollback) => Effect.succeed(report(true, 1, rollback.results))
          )
        )

    /** The write scopes every record of the body needs (403 listing the missing ones). */
    const authorize = (body: ImportBody) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        requireScopes(principal, body.records.map((record, index) => ({ index, resource: record.resource, body: record.body })))
      )

    /**
     * POST /imports. Every record's write scopes are checked up front (403 listing the missing ones);
     * a dry run answers with its report, else the job is queued unless the connection has 20 pending.
     */
    const submit = (body: ImportBody) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const records: ReadonlyArray<PlannedRecord> = body.records.map((record, index) => ({ index, resource: record.resource, body: record.body }))
        yield* requireScopes(principal, records)
        if (body.dry_run === true) return { _tag: "DryRun", report: yield* dryRun(records) } satisfies Submitted
        const { millis, at } = yield* now
        const job: StoredJob = queued(principal, "import", yield* ids.next, { millis, at })
        const items = records.map((record): ImportItem => ({
          jobId: job.id,
          index: record.index,
          resource: record.resource,
          body: record.body,
          externalId: externalIdOf(record.body),
          status: "pending",
          outcome: null,
          recordId: null,
          error: null,
          run: 1,
          updatedAt: at
        }))
        yield* transactor.withTransaction(
          Effect.gen(function* () {
            if (!(yield* jobs.insert(job, maxPendingPerConnection))) return yield* limitReached
            yield* store.insertItems(items)
          })
        )
        return { _tag: "Queued", job: render(job, countsOf(items)) } satisfies Submitted
      })

    /** Acts for the job's connection with its scopes, as far as the company still grants them. */
    const principalOf = (job: StoredJob) =>
      Effect.gen(function* () {
        const company = yield* accounts.getCompany(job.companyId)
        const connection = yield* accounts.getConnection(job.connectionId)
        const refuse = (code: string, message: string) => Effect.succeed({ _tag: "Refused" as const, failure: { code, message } })
        if (Option.isNone(company) || !company.value.enabled) return yield* refuse("company_disabled", "the company's API access is disabled")
        if (!company.value.subscription_active) return yield* refuse("subscription_inactive", "the company's subscription is not active")
        if (Option.isNone(connection) || !connection.value.enabled) return yield* refuse("connection_disabled", "the job's connection is disabled")
        const principal: Principal = {
          company: settingsOf(company.value),
          connectionId: job.connectionId,
          keyId: job.keyId,
          scopes: effective(company.value.granted_scopes, job.scopes),
          features: { stock: company.value.stock_package && company.value.inventory_module }
        }
        return { _tag: "Allowed" as const, principal }
      })

    /**
     * Processes a claimed import job for `workerId`: every record not applied yet, over several passes.
     * Records commit in batches (`recordsPerTransaction`) with their durable results after one lease
     * check, so a worker that lost its lease writes nothing more, and records applied before a crash are
     * skipped when the job is taken up again.
     * Ends the job completed (every record applied) or failed (some record failed).
     */
    const process = (job: StoredJob, workerId: string, leaseMillis: number) =>
      Effect.gen(function* () {
        const finish = (failure: JobFailure | null, failed: boolean) =>
          Effect.flatMap(now, ({ at }) => jobs.finish(job.id, workerId, { state: failed ? "failed" : "completed", failure, at }))
        const access = yield* principalOf(job)
        if (access._tag === "Refused") return yield* finish(access.failure, true)
        const items = yield* store.items(job.id)
        const waiting = items.filter((item) => item.status !== "applied")
        const holdLease = Effect.gen(function* () {
          const { millis } = yield* now
          if (!(yield* jobs.heartbeat(job.id, workerId, millis + leaseMillis))) return yield* new LeaseLost({ jobId: job.id })
        })
        // One transaction per batch with the lease checked once: each record's upsert is a savepoint of
        // it (a failing record rolls back its own writes only) and its applied mark commits with it.
        const applyBatch = (batch: ReadonlyArray<ImportItem>) =>
          transactor
            .withTransaction(
              Effect.zipRight(
                holdLease,
                Effect.forEach(batch, (item) =>
                  attempt(item, (decoded) =>
                    Effect.gen(function* () {
                      const result = yield* catalog.upsert(item.resource, decoded)
                      const { at } = yield* now
                      const recordId = result.record.id as string
                      if (!(yield* store.markApplied(job.id, item.index, { outcome: result.outcome, recordId, run: job.run, at }))) {
                        // Applied by another worker that held the job before: roll the whole batch back.
                        return yield* new LeaseLost({ jobId: job.id })
                      }
                      return { _tag: "Applied", outcome: result.outcome, recordId } satisfies Attempt
                    })
                  )
                )
              )
            )
            .pipe(Effect.retry({ schedule: busyRetry, while: isRetryable }))
        const { results } = yield* runPassesInBatches(waiting, recordsPerTransaction, applyBatch).pipe(Effect.provideService(CurrentPrincipal, access.principal))
        const failures = Array.from(results).flatMap(([index, result]) => (result._tag === "Failed" ? [[index, result.error] as const] : []))
        if (failures.length > 0) {
          const { at } = yield* now
          yield* transactor.withTransaction(
            Effect.zipRight(
              holdLease,
              Effect.forEach(failures, ([index, error]) => store.markFailed(job.id, index, { error, run: job.run, at }), { discard: true })
            )
          )
        }
        return yield* finish(null, failures.length > 0)
      })

    /** The report of an import job, from its durable per-record results. */
    const reportOf = (job: StoredJob) => Effect.map(store.items(job.id), (items) => report(false, job.run, items.map(toResult)))

    /**
     * Restarts a failed or paused import job: the records that are not applied run again in a new run,
     * with the retrying key's scopes, which must cover them. Applied records are never run again.
     */
    const retry = (job: StoredJob) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        if (!retryableStates.includes(job.state)) {
          return yield* new JobNotRetryable({ message: `only failed or paused jobs can be retried; this job is ${job.state}`, state: job.state })
        }
        const items = yield* store.items(job.id)
        yield* requireScopes(principal, items.filter((item) => item.status !== "applied"))
        const { millis, at } = yield* now
        const scope = { companyId: principal.company.id, connectionId: principal.connectionId }
        const run = job.run + 1
        const requeued = yield* transactor.withTransaction(
          Effect.gen(function* () {
            const requeue = yield* jobs.requeue(scope, job.id, {
              from: retryableStates,
              run,
              scopes: Array.from(principal.scopes),
              nowMillis: millis,
              at,
              maxPending: maxPendingPerConnection
            })
            switch (requeue._tag) {
              case "LimitReached":
                return yield* limitReached
              case "NotInState":
                return yield* new JobNotRetryable({
                  message: `only failed or paused jobs can be retried; this job is now ${requeue.state ?? "gone"}`,
                  state: requeue.state ?? job.state
                })
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
        yield* requireScopes(principal, items.filter((item) => item.status !== "applied"))
      })

    return { authorize, authorizeRetry, submit, process, report: reportOf, retry } as const
  })
}) {}
