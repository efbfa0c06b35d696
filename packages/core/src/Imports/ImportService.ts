import { Context, Effect, Layer } from "effect"
import type { JobKindHandler } from "../internal/Jobs/JobKindHandler.js"
import { makeImportJob } from "../internal/Imports/ImportJob.js"
import { makeRetry } from "../internal/Imports/ImportRetry.js"
import { ImportStore } from "./ImportStore.js"
import { makeSubmit } from "../internal/Imports/ImportSubmit.js"

export { countsOf } from "../internal/Imports/ImportResults.js"
export { holdsAnyScopesFor, preauthorize, scopesFor } from "../internal/Imports/ImportScopes.js"
export { recordsPerTransaction } from "../internal/Imports/ImportJob.js"
export { jobLimitRetryAfterSeconds, type Submitted } from "../internal/Imports/ImportSubmit.js"

/**
 * Batch imports: submission and dry run (POST /imports, `ImportSubmit`), the job a worker processes
 * (`ImportJob`), its report and retry (`ImportRetry`).
 */
export class ImportService extends Context.Service<ImportService>()("@catalog-sync/core/ImportService", {
  make: Effect.gen(function* () {
    const store = yield* ImportStore
    const submits = yield* makeSubmit
    const job = yield* makeImportJob
    const retries = yield* makeRetry

    /** What import jobs are to the worker and the job endpoints. */
    const jobKind: JobKindHandler = {
      process: job.process,
      counts: (page) => store.counts(page.map((job) => job.id)),
      report: retries.report,
      retry: retries.retry,
      authorizeRetry: retries.authorizeRetry
    }

    return {
      authorize: submits.authorize,
      authorizeRetry: retries.authorizeRetry,
      submit: submits.submit,
      submitCommand: submits.submitCommand,
      process: job.process,
      report: retries.report,
      retry: retries.retry,
      jobKind
    } as const
  })
}) {
  /** The service over its ports (the layer Effect 3's `Effect.Service` generated). */
  static readonly Default = Layer.effect(this, this.make)
}
