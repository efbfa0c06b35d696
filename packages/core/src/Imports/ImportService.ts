import { Clock, Data, Effect, Either, Option, Schedule, Schema } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { CurrentPrincipal, type Principal } from "../Auth/Principal.js"
import {
  type BodyParts,
  bodyParts,
  missingScopes,
  pricesModeBody,
  requiredWriteScopes,
  sentWriteScopes
} from "../Catalog/Access.js"
import { type PersistenceError, ScopeDenied, type ValidationFailed } from "../Shared/Errors.js"
import { CatalogService } from "../Catalog/CatalogService.js"
import { UpsertMode } from "../Resources/CommonFields.js"
import { decodeUpsert } from "../Catalog/Decode.js"
import * as WriteBehind from "../Catalog/WriteBehind.js"
import type { Document } from "../Resources/ResourceDefinition.js"
import type { ResourceName } from "../Resources/Resource.js"
import { definitions } from "../Resources/Registry.js"
import {
  type JobFailure,
  type JobRecord,
  type JobState,
  maxPendingPerConnection,
  queued,
  render,
  retryableStates,
  type StoredJob
} from "../Jobs/Job.js"
import { currentTraceParent } from "../Jobs/JobTrace.js"
import { JobLimitReached, JobNotRetryable, LeaseLost } from "../Jobs/JobErrors.js"
import { jobAccess } from "../Jobs/JobAccess.js"
import type { JobKindHandler } from "../Jobs/JobKinds.js"
import { JobSignal } from "../Jobs/JobSignal.js"
import { JobStore } from "../Jobs/JobStore.js"
import { ExternalId, Ids } from "../Shared/Ids.js"
import type { Scope } from "../Shared/Scope.js"
import { Transactor } from "../Shared/Transactor.js"
import { command, runDirect } from "../Writes/WriteCommand.js"
import { type ImportBody, type ImportReport, maxRecords, type RecordResult, report } from "./Import.js"
import { type ImportCounts, type ImportItem, ImportStore } from "./ImportStore.js"
import { type Attempt, type PlannedRecord, runPasses, runPassesInBatches } from "./ImportRunner.js"
import { bodyPath, failedAttempt, isRecordFailure, type RecordFailure } from "./RecordErrors.js"
import { boundReportErrors } from "./ReportBounds.js"
import { visibleReport } from "./ReportVisibility.js"

/** What POST /imports answers: a dry run's report, or the queued job. */
export type Submitted =
  { readonly _tag: "DryRun"; readonly report: ImportReport } | { readonly _tag: "Queued"; readonly job: JobRecord }

/** Seconds a client waits before submitting again when its connection has 20 pending jobs. */
export const jobLimitRetryAfterSeconds = 5

const limitReached = new JobLimitReached({
  message: `this connection has ${maxPendingPerConnection} pending (queued or running) jobs; retry when one has finished`,
  limit: maxPendingPerConnection,
  retry_after: jobLimitRetryAfterSeconds
})

/** Ends an import run whose access stopped (spec 5.4) before its next batch. */
class AccessStopped extends Data.TaggedError("AccessStopped")<{ readonly failure: JobFailure }> {}

/** The states a retry may restart the job from: failed and paused, and completed while records failed. */
const retryableFrom = (job: StoredJob, items: ReadonlyArray<ImportItem>): ReadonlyArray<JobState> =>
  retryableStates.includes(job.state)
    ? retryableStates
    : job.state === "completed" && items.some((item) => item.status === "failed")
      ? ["completed"]
      : []

const notRetryable = (state: JobState) =>
  new JobNotRetryable({
    message:
      state === "completed"
        ? "this import completed with every record applied; there is nothing to retry"
        : `only failed or paused jobs, and completed imports with failed records, can be retried; this job is ${state}`,
    state
  })

/** Carries a dry run's results out of the transaction it rolls back. */
class DryRunRollback extends Data.TaggedError("DryRunRollback")<{ readonly results: ReadonlyArray<RecordResult> }> {}

const modeOf = (body: Readonly<Record<string, unknown>>): UpsertMode =>
  UpsertMode.literals.includes(body.mode as UpsertMode) ? (body.mode as UpsertMode) : "catalog"

const noParts: BodyParts = { catalogKeys: [], priceKeys: [], costKeys: [], coefficient: false }

/**
 * The write scopes the records need whatever they turn out to be (creates in combined mode need
 * catalog:write as well, which their own upsert checks). A body is checked against its upsert schema
 * before anything reads it; one that fails it (and will fail as a record) still asks for the scopes of
 * its mode.
 */
export const scopesFor = (records: ReadonlyArray<PlannedRecord>): ReadonlyArray<Scope> => {
  const needed = new Set<Scope>()
  for (const record of records) {
    const definition = definitions[record.resource]
    const decoded = decodeUpsert(record.resource, record.body)
    const parts = Either.isLeft(decoded) ? noParts : bodyParts(definition, decoded.right)
    for (const scope of requiredWriteScopes(modeOf(record.body), parts, false)) needed.add(scope)
  }
  return Array.from(needed)
}

/**
 * Whether `held` covers whatever `scopesFor` could ask of these records, read without decoding them: a
 * record asks for the scopes of its parts when its body decodes (a decoded body has the keys it was sent
 * with: the upsert schemas are exact structs, no defaults, no renames) and of its mode alone when it does
 * not, so holding both for its sent keys is enough. It spares a submission the strict decode of every
 * body (the job decodes each one when it applies it); a key short of them gets the exact answer.
 */
export const holdsAnyScopesFor = (records: ReadonlyArray<PlannedRecord>, held: ReadonlySet<Scope>): boolean =>
  records.every((record) => {
    const mode = modeOf(record.body)
    const sent = bodyParts(definitions[record.resource], record.body as Document)
    return (
      missingScopes(requiredWriteScopes(mode, sent, false), held).length === 0 &&
      missingScopes(requiredWriteScopes(mode, noParts, false), held).length === 0
    )
  })

/** The write scopes of which every import needs one. */
const importWriteScopes: ReadonlyArray<Scope> = ["catalog:write", "prices:write", "costs:write"]

/** The scopes the records of an import body need, read as sent (of its first `maxRecords` records). */
const sentScopesFor = (sent: unknown): ReadonlyArray<Scope> => {
  const records = typeof sent === "object" && sent !== null && "records" in sent ? sent.records : undefined
  const needed = new Set<Scope>()
  for (const record of Array.isArray(records) ? records.slice(0, maxRecords) : []) {
    const resource: unknown = typeof record === "object" && record !== null ? record.resource : undefined
    if (typeof resource === "string" && Object.hasOwn(definitions, resource)) {
      for (const scope of sentWriteScopes(definitions[resource as ResourceName], record.body)) needed.add(scope)
    }
  }
  return Array.from(needed)
}

/**
 * What can be decided of an import's scopes before its body is decoded: a key holding no write scope is
 * refused, naming the scopes its records as sent need (catalog:write when none can be read), so that
 * the body is never decoded. `authorize` decides on the decoded body.
 */
export const preauthorize = (sent: unknown): Effect.Effect<void, ScopeDenied, CurrentPrincipal> =>
  Effect.flatMap(CurrentPrincipal, (principal) => {
    if (importWriteScopes.some((scope) => principal.scopes.has(scope))) return Effect.void
    const sentScopes = sentScopesFor(sent)
    const required = sentScopes.length > 0 ? sentScopes : (["catalog:write"] as const)
    return Effect.fail(
      new ScopeDenied({ message: `the records of this import need the scopes ${required.join(", ")}`, required })
    )
  })

const requireScopes = (principal: Principal, records: ReadonlyArray<PlannedRecord>) => {
  const missing = holdsAnyScopesFor(records, principal.scopes)
    ? []
    : missingScopes(scopesFor(records), principal.scopes)
  return missing.length === 0
    ? Effect.void
    : Effect.fail(
        new ScopeDenied({
          message: `the records of this import need the scopes ${missing.join(", ")}`,
          required: missing
        })
      )
}

const isExternalId = Schema.is(ExternalId)

/**
 * The record's external_id as its report shows it and its row stores it: only a valid one (a record whose
 * external_id is not fails at `$.records[i].body.external_id` anyway), so that a value the database cannot
 * hold (U+0000 on PostgreSQL) or a long one never reaches the store.
 */
const externalIdOf = (body: Readonly<Record<string, unknown>>): string | null =>
  isExternalId(body.external_id) ? body.external_id : null

/** A prices-mode record's catalog fields, preserved rather than applied, as paths within the import body. */
const ignoredFieldsOf = (index: number, resource: PlannedRecord["resource"], body: Document): ReadonlyArray<string> =>
  modeOf(body) === "prices"
    ? pricesModeBody(definitions[resource], body).ignored.map((path) => bodyPath(index, path))
    : []

const withIgnored = (result: RecordResult, body: Document): RecordResult => {
  const ignored = result.status === "applied" ? ignoredFieldsOf(result.index, result.resource, body) : []
  return ignored.length > 0 ? { ...result, ignored_fields: ignored } : result
}

const toResult = (item: ImportItem): RecordResult =>
  withIgnored(
    {
      index: item.index,
      resource: item.resource,
      external_id: item.externalId,
      status: item.status,
      outcome: item.outcome,
      id: item.recordId,
      error: item.error,
      run: item.run
    },
    item.body
  )

const isRetryable = (error: unknown): boolean =>
  typeof error === "object" &&
  error !== null &&
  (error as { _tag?: unknown })._tag === "PersistenceError" &&
  (error as PersistenceError).retryable

/** A busy database while a batch is written is retried (the whole batch) a few times before the run gives up. */
const busyRetry = Schedule.exponential("50 millis").pipe(Schedule.intersect(Schedule.recurs(4)))

/**
 * Records a worker applies in one transaction: a full import body. Set-based, a batch's statements are
 * the same for 1 record or 50, so a batch of 50 holds the connection for less time than 25 did record by
 * record; halving the batches per job took the SQLite import from ~2,400 to ~3,250 records/s (issue 23).
 */
export const recordsPerTransaction = 50

/** The counts of a job's report. */
export const countsOf = (items: ReadonlyArray<ImportItem>): ImportCounts => {
  const results = report(false, 1, items.map(toResult))
  return {
    total: results.total,
    created: results.created,
    updated: results.updated,
    unchanged: results.unchanged,
    failed: results.failed,
    pending: results.pending
  }
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
    const signal = yield* JobSignal

    const now = Effect.map(Clock.currentTimeMillis, (millis) => ({ millis, at: new Date(millis).toISOString() }))

    /** Decodes and upserts one record; the failures that concern this record only become its result. */
    const attempt = <E, R>(
      record: PlannedRecord,
      write: (decoded: Readonly<Record<string, unknown>>) => Effect.Effect<Attempt, E, R>,
      decoded: Effect.Effect<Document, ValidationFailed> = decodeUpsert(record.resource, record.body)
    ) =>
      decoded.pipe(
        Effect.flatMap(write),
        Effect.catchAll((error) =>
          isRecordFailure(error)
            ? Effect.succeed(failedAttempt(record.index, error))
            : Effect.fail(error as Exclude<E, RecordFailure>)
        )
      )

    const dryRun = (records: ReadonlyArray<PlannedRecord>) =>
      transactor
        .withTransaction(
          runPasses(records, (record) =>
            attempt(record, (decoded) =>
              // A savepoint: a failed record rolls back its own writes only.
              Effect.map(transactor.withTransaction(catalog.upsert(record.resource, decoded)), (result): Attempt => ({
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
                  results: boundReportErrors(
                    records.map((record): RecordResult => {
                      const result = results.get(record.index)!
                      return withIgnored(
                        {
                          index: record.index,
                          resource: record.resource,
                          external_id: externalIdOf(record.body),
                          status: result._tag === "Applied" ? "applied" : "failed",
                          outcome: result._tag === "Applied" ? result.outcome : null,
                          id: result._tag === "Applied" && result.recordId !== "" ? result.recordId : null,
                          error: result._tag === "Failed" ? result.error : null,
                          run: 1
                        },
                        record.body
                      )
                    })
                  )
                })
              )
            )
          )
        )
        .pipe(
          Effect.catchIf(
            (error): error is DryRunRollback => error instanceof DryRunRollback,
            (rollback) =>
              Effect.map(CurrentPrincipal, (principal) =>
                visibleReport(report(true, 1, rollback.results), principal.scopes)
              )
          )
        )

    /** The write scopes every record of the body needs (403 listing the missing ones). */
    const authorize = (body: ImportBody) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        requireScopes(
          principal,
          body.records.map((record, index) => ({ index, resource: record.resource, body: record.body }))
        )
      )

    /**
     * POST /imports. Every record's write scopes are checked up front (403 listing the missing ones);
     * a dry run answers with its report, else the job is queued unless the connection has 20 pending.
     */
    const applySubmit = (body: ImportBody) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const records: ReadonlyArray<PlannedRecord> = body.records.map((record, index) => ({
          index,
          resource: record.resource,
          body: record.body
        }))
        if (body.dry_run === true) return { _tag: "DryRun", report: yield* dryRun(records) } satisfies Submitted
        const { millis, at } = yield* now
        const job: StoredJob = queued(principal, "import", yield* ids.next, { millis, at }, yield* currentTraceParent)
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

    /**
     * Processes a claimed import job for `workerId`: every record not applied yet, over several passes.
     * Records commit in batches (`recordsPerTransaction`) with their durable results after one lease
     * check, so a worker that lost its lease writes nothing more, and records applied before a crash are
     * skipped when the job is taken up again.
     * A job whose passes finish ends completed, its report counting the records that failed (spec 3); it
     * ends failed only when it cannot finish: its access stopped (checked at the start and before every
     * batch, so nothing more is written), or a fault the worker could not get past.
     */
    const process = (job: StoredJob, workerId: string, leaseMillis: number) =>
      Effect.gen(function* () {
        const finish = (failure: JobFailure | null) =>
          Effect.flatMap(now, ({ at }) =>
            jobs.finish(job.id, workerId, { state: failure === null ? "completed" : "failed", failure, at })
          )
        const currentAccess = Effect.flatMap(Effect.provideService(jobAccess(job), Accounts, accounts), (access) =>
          access._tag === "Allowed"
            ? Effect.succeed(access.principal)
            : Effect.fail(new AccessStopped({ failure: access.failure }))
        )
        const items = yield* store.items(job.id)
        const waiting = items.filter((item) => item.status !== "applied")
        const holdLease = Effect.gen(function* () {
          const { millis } = yield* now
          if (!(yield* jobs.heartbeat(job.id, workerId, millis + leaseMillis)))
            return yield* new LeaseLost({ jobId: job.id })
        })
        // Record by record: each record's upsert is a savepoint of the batch's transaction (a failing
        // record rolls back its own writes only) and its applied mark commits with it.
        const applyPerRecord = (batch: ReadonlyArray<ImportItem>) =>
          transactor.withTransaction(
            Effect.zipRight(
              holdLease,
              Effect.forEach(batch, (item) =>
                attempt(item, (decoded) =>
                  Effect.gen(function* () {
                    const result = yield* transactor.withTransaction(catalog.upsert(item.resource, decoded))
                    const { at } = yield* now
                    const recordId = result.record.id as string
                    if (
                      !(yield* store.markApplied(job.id, item.index, {
                        outcome: result.outcome,
                        recordId,
                        run: job.run,
                        at
                      }))
                    ) {
                      // Applied by another worker that held the job before: roll the whole batch back.
                      return yield* new LeaseLost({ jobId: job.id })
                    }
                    return { _tag: "Applied", outcome: result.outcome, recordId } satisfies Attempt
                  })
                )
              )
            )
          )
        // Set-based (issue 23): the batch's mappings read up front, its new records, mappings and changes
        // written in one statement per table and its applied marks in one, with no savepoint per record.
        // A record that fails before writing needs none; one that failed after writing, or a conflict
        // when flushing, abandons this for `applyPerRecord` after the rollback.
        const applySetBased = (batch: ReadonlyArray<ImportItem>) =>
          transactor.withTransaction(
            Effect.gen(function* () {
              yield* holdLease
              const writer = yield* catalog.batchWriter
              const decoded = batch.map((item) => decodeUpsert(item.resource, item.body))
              yield* writer.prefetch(
                batch.flatMap((item, i) => {
                  const body = decoded[i]!
                  return body._tag === "Right" ? [{ resource: item.resource, body: body.right }] : []
                })
              )
              const attempts: Array<Attempt> = []
              for (const [i, item] of batch.entries()) {
                const before = writer.writes()
                const result = yield* attempt(
                  item,
                  (body) =>
                    Effect.map(writer.upsert(item.resource, body), (written): Attempt => ({
                      _tag: "Applied",
                      ...written
                    })),
                  decoded[i]!
                )
                if (result._tag === "Failed" && writer.writes() !== before)
                  return yield* WriteBehind.abandon(`import record ${item.index} failed after writing`)
                attempts.push(result)
              }
              yield* writer.flush
              const applied = batch.flatMap((item, i) => {
                const result = attempts[i]!
                return result._tag === "Applied"
                  ? [{ index: item.index, outcome: result.outcome, recordId: result.recordId }]
                  : []
              })
              if (applied.length > 0) {
                const { at } = yield* now
                // Fewer marked than applied: another worker that held the job before applied some.
                if ((yield* store.markAppliedMany(job.id, applied, { run: job.run, at })) !== applied.length)
                  return yield* new LeaseLost({ jobId: job.id })
              }
              return attempts
            })
          )
        const applyBatch = (batch: ReadonlyArray<ImportItem>) =>
          applySetBased(batch).pipe(
            Effect.catchSomeDefect((defect) =>
              WriteBehind.isAbandoned(defect) ? Option.some(applyPerRecord(batch)) : Option.none()
            ),
            Effect.retry({ schedule: busyRetry, while: isRetryable })
          )
        // Each batch acts as the job's principal as it is now: a revoked key or changed grants take effect at once.
        const passes = yield* Effect.either(
          runPassesInBatches(waiting, recordsPerTransaction, (batch) =>
            Effect.flatMap(currentAccess, (principal) =>
              Effect.provideService(applyBatch(batch), CurrentPrincipal, principal)
            )
          )
        )
        if (passes._tag === "Left") {
          if (passes.left instanceof AccessStopped) return yield* finish(passes.left.failure)
          return yield* passes.left
        }
        const { results } = passes.right
        // In index order, as the report lists them: its error budget goes to the first ones.
        const failures = boundReportErrors(
          Array.from(results)
            .flatMap(([index, result]) => (result._tag === "Failed" ? [{ index, error: result.error }] : []))
            .sort((a, b) => a.index - b.index)
        )
        if (failures.length > 0) {
          const { at } = yield* now
          yield* transactor.withTransaction(
            Effect.zipRight(
              holdLease,
              Effect.forEach(
                failures,
                ({ index, error }) => store.markFailed(job.id, index, { error, run: job.run, at }),
                { discard: true }
              )
            )
          )
        }
        return yield* finish(null)
      })

    /** The report of an import job, from its durable per-record results, as the reader may see it. */
    const reportOf = (job: StoredJob) =>
      Effect.zipWith(store.items(job.id), CurrentPrincipal, (items, reader) =>
        visibleReport(report(false, job.run, items.map(toResult)), reader.scopes)
      )

    /**
     * Restarts an import job: a failed or paused one, or (an extension of spec 3) a completed one whose
     * report counts failed records. The records that are not applied run again in a new run, for the
     * retrying key with its scopes, which must cover them. Applied records are never run again.
     */
    const retry = (job: StoredJob) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const items = yield* store.items(job.id)
        const from = retryableFrom(job, items)
        if (from.length === 0) return yield* notRetryable(job.state)
        const { millis, at } = yield* now
        const scope = { companyId: principal.company.id, connectionId: principal.connectionId }
        const run = job.run + 1
        const requeued = yield* transactor.withTransaction(
          Effect.gen(function* () {
            const requeue = yield* jobs.requeue(scope, job.id, {
              from,
              run,
              keyId: principal.keyId,
              scopes: Array.from(principal.scopes),
              nowMillis: millis,
              at,
              maxPending: maxPendingPerConnection,
              traceParent: yield* currentTraceParent
            })
            switch (requeue._tag) {
              case "LimitReached":
                return yield* limitReached
              case "NotInState":
                return yield* notRetryable(requeue.state ?? job.state)
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
        yield* requireScopes(
          principal,
          items.filter((item) => item.status !== "applied")
        )
      })

    /** What import jobs are to the worker and the job endpoints. */
    const jobKind: JobKindHandler = {
      process,
      counts: (page) => store.counts(page.map((job) => job.id)),
      report: reportOf,
      retry,
      authorizeRetry
    }

    /** POST /imports as a write command (see `WriteRunner`): a queued job wakes an idle worker once committed. */
    const submitCommand = (body: ImportBody) =>
      command({ authorize: authorize(body), run: applySubmit(body), afterCommit: signal.notify })

    const submit = (body: ImportBody) => runDirect(submitCommand(body))

    return { authorize, authorizeRetry, submit, submitCommand, process, report: reportOf, retry, jobKind } as const
  })
}) {}
