import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Import, Job } from "@catalog-sync/core"
import { Schema } from "effect"
import { Conflict, NotFound } from "../ApiErrors.js"
import { Authentication } from "../Authentication.js"
import { operationExamples } from "../Examples.js"
import { jobGetExamples, jobListExamples, jobRetryExamples } from "./Examples.js"
import { listFields } from "../Catalog/Api.js"
import { IdempotencyHeaders, PageCursor, PathParams, strict } from "../Common.js"

/** GET /jobs and GET /imports query: limit and cursor (spec 4.3). Unknown parameters are refused. */
export const JobListQuery = Schema.Struct({
  limit: listFields.limit,
  cursor: Schema.optional(PageCursor("a job id"))
}).annotations(strict)

export const JobListResponse = Schema.Struct({
  request_id: Schema.UUID,
  records: Schema.Array(Job.JobRecord),
  next_cursor: Schema.NullOr(Schema.UUID),
  has_more: Schema.Boolean
})

export const JobDetailResponse = Schema.Struct({
  request_id: Schema.UUID,
  job: Job.JobRecord,
  report: Schema.NullOr(Import.ImportReport).annotations({
    description: "The import report: counts and one result per record."
  })
})

/** 202: a job accepted (queued) by POST /imports or restarted by a retry. */
export const JobAccepted = Schema.Struct({
  request_id: Schema.UUID,
  job: Job.JobRecord,
  replayed: Schema.optional(
    Schema.Boolean.annotations({ description: "A repeated Idempotency-Key: the job as it was accepted." })
  )
}).annotations({ identifier: "JobAccepted" })

/**
 * The read and retry endpoints of jobs, under `/jobs` (every kind) or `/imports` (import jobs): a
 * connection sees its own jobs only.
 */
export const jobEndpoints = <const Name extends string>(name: Name, base: "/jobs" | "/imports") => {
  const what = base === "/jobs" ? "jobs" : "import jobs"
  return HttpApiGroup.make(name)
    .annotate(
      OpenApi.Description,
      base === "/jobs"
        ? "Background jobs of the connection (imports and image processing): poll them, retry failed or paused ones."
        : "Batch imports of 1-50 records of any catalog resource, as a dry run (a synchronous report) or a background job."
    )
    .add(
      HttpApiEndpoint.get("list", base)
        .setUrlParams(JobListQuery)
        .addSuccess(JobListResponse)
        .annotate(OpenApi.Summary, `List the connection's ${what}`)
        .annotate(
          OpenApi.Description,
          "A cursor page in id order (oldest first). Any valid key; only the connection's own jobs."
        )
        .annotate(OpenApi.Transform, operationExamples(jobListExamples(base)))
    )
    .add(
      HttpApiEndpoint.get("get", `${base}/:id`)
        .setPath(PathParams("The job's id."))
        .addSuccess(JobDetailResponse)
        .addError(NotFound)
        .annotate(OpenApi.Summary, `Read one of the connection's ${what}, with its report`)
        .annotate(
          OpenApi.Description,
          "Poll it until state is completed, failed or paused; per-record results are in the report (import jobs)."
        )
        .annotate(OpenApi.Transform, operationExamples(jobGetExamples(base)))
    )
    .add(
      HttpApiEndpoint.post("retry", `${base}/:id/retry`)
        .setPath(PathParams("The job's id."))
        .setHeaders(IdempotencyHeaders)
        .addSuccess(JobAccepted, { status: 202 })
        .addError(NotFound)
        .addError(Conflict)
        .annotate(OpenApi.Summary, "Restart a failed or paused job")
        .annotate(OpenApi.Transform, operationExamples(jobRetryExamples(base)))
        .annotate(
          OpenApi.Description,
          "Re-runs only the records that are not applied (never the applied ones); the report's rerun lists them. Needs the write scopes of those records and a key of the job's connection. No body."
        )
    )
}

export const JobsApi = jobEndpoints("jobs", "/jobs").middleware(Authentication)
