/**
 * One batch of records through `POST /imports`: sent once (a batch the state file says was sent is only
 * followed), its job followed to its end, and every record's outcome read from the report. A dry run
 * reads the outcomes from the answer itself and counts references to earlier batches as deferred.
 */
import { Effect } from "effect"
import type { ClientError } from "../Errors.js"
import type { Batch } from "./Batch.js"
import { type Declared, deferred } from "./DryRun.js"
import { fatal, isFatal, LoadError, refusal } from "./LoadError.js"
import { lineId, recordFailure, recordId, recordPath } from "./Report.js"
import { type Outcome, type Run, tally } from "./Run.js"
import type * as State from "./State.js"

export interface BatchSender {
  readonly send: (batch: Batch) => Effect.Effect<void, LoadError>
  /** Dry run: records counted as deferred so far. */
  readonly deferred: () => number
}

const body = (batch: Batch) => batch.records.map((r) => ({ resource: r.resource, body: r.body }))
const named = (batch: Batch) => `${batch.tier} batch ${batch.seq + 1}`

/** Every record of a batch the server refused as a whole fails with the refusal. */
const refused = (run: Run, batch: Batch, error: ClientError) =>
  run.settled(
    batch.key,
    tally(batch.records.map((record) => [record.resource, "failed"])),
    batch.records.map((record) => [recordId(record), recordFailure(record, refusal(error))] as const),
    []
  )

const importBatch = (run: Run) => {
  const submit = (batch: Batch) =>
    run.tracker.submitting(run.next().imports.submit({ records: body(batch) }, { idempotencyKey: batch.key }))

  const send = (batch: Batch): Effect.Effect<void, LoadError> =>
    Effect.gen(function* () {
      if (run.state.done.has(batch.key)) return
      let jobId = run.state.sent.get(batch.key)
      if (jobId === undefined) {
        const answer = yield* Effect.result(submit(batch))
        if (answer._tag === "Failure") {
          if (isFatal(answer.failure)) return yield* Effect.fail(fatal(`sending ${named(batch)}`)(answer.failure))
          return yield* refused(run, batch, answer.failure)
        }
        if (!("job" in answer.success))
          return yield* new LoadError({ message: "the server answered an import with a report instead of a job" })
        jobId = answer.success.job.id
        yield* run.log({ e: "sent", key: batch.key, job: jobId })
      }
      const outcome = yield* Effect.result(run.settleJob(jobId))
      if (outcome._tag === "Failure") {
        // The job is gone (a server whose data was reset): send the batch again.
        if (outcome.failure._tag === "CatalogSyncError" && outcome.failure.code === "not_found") {
          run.state.sent.delete(batch.key)
          const answer = yield* Effect.result(submit(batch))
          if (answer._tag === "Failure") return yield* Effect.fail(fatal(`sending ${named(batch)}`)(answer.failure))
          // The server still replays the key with the job it lost: there is nothing to wait for.
          if (!("job" in answer.success) || answer.success.job.id === jobId) {
            return yield* new LoadError({
              message: `the job ${jobId} of ${named(batch)} is gone and its Idempotency-Key still names it`
            })
          }
          yield* run.log({ e: "sent", key: batch.key, job: answer.success.job.id })
          return yield* send(batch)
        }
        return yield* Effect.fail(fatal(`waiting for the job of ${named(batch)}`)(outcome.failure))
      }
      const mixed = batch.records.some((r) => r.resource !== batch.records[0]!.resource)
      // Per-resource counts of a batch of several resources come from its report.
      const end =
        mixed && outcome.success.end.report === undefined
          ? yield* run
              .next()
              .jobs.get(jobId)
              .pipe(Effect.mapError(fatal(`reading job ${jobId}`)))
          : outcome.success.end
      const counts = end.job.counts
      const records = end.report?.records ?? []
      const failures: Array<readonly [string, State.Failure]> = []
      const applied: Array<ReadonlyArray<string>> = []
      for (const [index, record] of batch.records.entries()) {
        const result = records.find((r) => r.index === index)
        const ids = [recordId(record), lineId(record.position)]
        if (result === undefined) {
          if (end.report === undefined) applied.push(ids)
          continue
        }
        if (result.status === "applied") applied.push(ids)
        else if (result.status === "failed" && result.error !== null)
          failures.push([ids[0]!, recordFailure(record, result.error)])
        else {
          const why = end.job.failure ?? {
            code: "job_not_finished",
            message: `the job ended ${end.job.state} before this record was processed`
          }
          failures.push([ids[0]!, recordFailure(record, why)])
        }
      }
      const perResource = mixed
        ? tally(
            batch.records.map((record, index) => {
              const result = records.find((r) => r.index === index)
              return [record.resource, result?.status === "applied" ? (result.outcome ?? "unchanged") : "failed"]
            })
          )
        : {
            [batch.records[0]!.resource]: {
              created: counts.created,
              updated: counts.updated,
              unchanged: counts.unchanged,
              failed: failures.length
            }
          }
      yield* run.settled(batch.key, perResource, failures, applied)
    })
  return send
}

const dryRunBatch = (run: Run, declared: Declared): BatchSender => {
  let deferredCount = 0
  const send = (batch: Batch): Effect.Effect<void, LoadError> =>
    Effect.gen(function* () {
      const answer = yield* Effect.result(
        run.next().imports.submit({ dry_run: true, records: body(batch) }, { idempotencyKey: batch.key })
      )
      if (answer._tag === "Failure") {
        if (isFatal(answer.failure)) return yield* Effect.fail(fatal(`dry run of ${named(batch)}`)(answer.failure))
        return yield* refused(run, batch, answer.failure)
      }
      if (!("report" in answer.success))
        return yield* new LoadError({ message: "the server answered a dry run with a job" })
      const failures: Array<readonly [string, State.Failure]> = []
      const outcomes: Array<readonly [string, Outcome]> = []
      for (const entry of answer.success.report.records) {
        const record = batch.records[entry.index]
        if (record === undefined) continue
        if (entry.status !== "failed" || entry.error === null)
          outcomes.push([record.resource, entry.outcome ?? "unchanged"])
        else if (deferred(record.body, entry.error, declared, recordPath)) {
          deferredCount++
          outcomes.push([record.resource, "created"])
        } else {
          failures.push([recordId(record), recordFailure(record, entry.error)])
          outcomes.push([record.resource, "failed"])
        }
      }
      yield* run.settled(batch.key, tally(outcomes), failures, [])
    })
  return { send, deferred: () => deferredCount }
}

/** How this run sends a batch: an import (followed to its job's end), or a dry run. */
export const batchSender = (run: Run, declared: Declared): BatchSender =>
  run.dryRun ? dryRunBatch(run, declared) : { send: importBatch(run), deferred: () => 0 }
