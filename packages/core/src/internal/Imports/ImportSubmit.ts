import { Data, Effect } from "effect"
import { CurrentPrincipal } from "../../Auth/Principal.js"
import { type JobRecord, maxPendingPerConnection, queued, render, type StoredJob } from "../../Jobs/Job.js"
import { JobLimitReached } from "../../Jobs/JobErrors.js"
import { JobSignal } from "../../Jobs/JobSignal.js"
import { JobStore } from "../../Jobs/JobStore.js"
import { currentTraceParent } from "../Jobs/JobTrace.js"
import { Ids } from "../../Shared/Ids.js"
import { now } from "../Shared/Now.js"
import { Transactor } from "../../Shared/Transactor.js"
import { command, runDirect } from "../../Writes/WriteCommand.js"
import { type ImportBody, type ImportReport, maxRecords, type RecordResult, report } from "../../Imports/Import.js"
import { countsOf, externalIdOf, withIgnored } from "./ImportResults.js"
import { makeDryRunGate } from "./DryRunGate.js"
import { makeBatchWrites } from "./BatchWrites.js"
import { type Attempt, type PlannedRecord, runPassesInBatches } from "./ImportRunner.js"
import { requireScopes } from "./ImportScopes.js"
import { type ImportItem, ImportStore } from "../../Imports/ImportStore.js"
import { decodedOnce } from "./RecordErrors.js"
import { boundReportErrors } from "./ReportBounds.js"
import { visibleReport } from "./ReportVisibility.js"

/** What POST /imports answers: a dry run's report, or the queued job. */
export type Submitted =
  { readonly _tag: "DryRun"; readonly report: ImportReport } | { readonly _tag: "Queued"; readonly job: JobRecord }

/** Seconds a client waits before submitting again when its connection has 20 pending jobs. */
export const jobLimitRetryAfterSeconds = 5

/** The refusal of a job over the connection's pending limit. */
export const limitReached = new JobLimitReached({
  message: `this connection has ${maxPendingPerConnection} pending (queued or running) jobs; retry when one has finished`,
  limit: maxPendingPerConnection,
  retry_after: jobLimitRetryAfterSeconds
})

/** Carries a dry run's results out of the transaction it rolls back. */
class DryRunRollback extends Data.TaggedError("DryRunRollback")<{ readonly results: ReadonlyArray<RecordResult> }> {}

/**
 * POST /imports: every record's write scopes are checked up front; a dry run applies every record in a
 * transaction that it rolls back and answers with the report, otherwise the records are stored with a
 * queued job that a worker processes (`ImportJob`).
 */
export const makeSubmit = Effect.gen(function* () {
  const jobs = yield* JobStore
  const store = yield* ImportStore
  const transactor = yield* Transactor
  const ids = yield* Ids
  const signal = yield* JobSignal
  const dryRuns = makeDryRunGate()
  const batches = yield* makeBatchWrites

  /**
   * Applies the records as a job applies a batch (`BatchWrites`) and rolls all of it back. A transaction
   * of its own, a savepoint inside the idempotent write: its writes roll back while the answer it gives
   * is stored with the Idempotency-Key.
   */
  const dryRun = (records: ReadonlyArray<PlannedRecord>) => {
    const decoded = decodedOnce()
    // A savepoint: a set-based batch abandoned after writing rolls back before it is applied record by record.
    const applyBatch = (batch: ReadonlyArray<PlannedRecord>) =>
      transactor.withTransaction(batches.setBased(batch, decoded)).pipe(
        Effect.catchTag("WriteBehindAbandoned", () =>
          batches.perRecord(batch, decoded, (_, written) => Effect.succeed<Attempt>({ _tag: "Applied", ...written }))
        ),
        // A dry run's new records do not survive it: no id to show.
        Effect.map((attempts) =>
          attempts.map((result): Attempt =>
            result._tag === "Applied" && result.outcome === "created" ? { ...result, recordId: "" } : result
          )
        )
      )
    return transactor
      .withTransaction(
        runPassesInBatches(records, maxRecords, applyBatch).pipe(
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
  }

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
      yield* transactor.atomically(
        Effect.gen(function* () {
          if (!(yield* jobs.insert(job, maxPendingPerConnection))) return yield* limitReached
          yield* store.insertItems(items)
        })
      )
      return { _tag: "Queued", job: render(job, countsOf(items)) } satisfies Submitted
    })

  /** POST /imports as a write command (see `WriteRunner`): a queued job wakes an idle worker once committed. */
  const submitCommand = (body: ImportBody) =>
    command({
      authorize: authorize(body),
      admit:
        body.dry_run === true
          ? Effect.flatMap(CurrentPrincipal, (principal) => dryRuns.enter(principal.company.id))
          : Effect.void,
      run: applySubmit(body),
      afterCommit: signal.notify
    })

  const submit = (body: ImportBody) => runDirect(submitCommand(body))

  return { authorize, submit, submitCommand } as const
})
