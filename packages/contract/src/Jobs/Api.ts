import { Ids, Import, Job } from "@catalog-sync/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Conflict, NotFound, requestErrors } from "../ApiErrors.js"
import { Authentication } from "../Authentication.js"
import { operationDocs } from "../Examples.js"
import { jobGetExamples, jobListExamples, jobRetryExamples } from "./Examples.js"
import { listFields } from "../Catalog/Api.js"
import { IdempotencyHeaders, PageCursor, PathParams, strict } from "../Common.js"

/** GET /jobs and GET /imports query: limit and cursor (spec 4.3). Unknown parameters are refused. */
export const JobListQuery = Schema.Struct({
  limit: listFields.limit,
  cursor: Schema.optional(PageCursor("a job id"))
}).annotate(strict)

export const JobListResponse = Schema.Struct({
  request_id: Ids.UUID,
  records: Schema.Array(Job.JobRecord),
  next_cursor: Schema.NullOr(Ids.UUID),
  has_more: Schema.Boolean
})

export const JobDetailResponse = Schema.Struct({
  request_id: Ids.UUID,
  job: Job.JobRecord,
  report: Schema.NullOr(Import.ImportReport).annotate({
    description: "The import report: counts and one result per record."
  })
})

/** 202: a job accepted (queued) by POST /imports or restarted by a retry. */
export const JobAccepted = Schema.Struct({
  request_id: Ids.UUID,
  job: Job.JobRecord,
  replayed: Schema.optionalKey(
    Schema.Boolean.annotate({ description: "A repeated Idempotency-Key: the job as it was accepted." })
  )
}).annotate({ identifier: "JobAccepted" })

/**
 * `JobAccepted` as the 202 response of an endpoint: its fields without the identifier, so that the
 * document shows the body inline with the description "Success", as before Effect 4.
 */
export const Accepted = Schema.Struct(JobAccepted.fields).pipe(HttpApiSchema.status(202))

/**
 * The read and retry endpoints of jobs, under `/jobs` (every kind) or `/imports` (import jobs): a
 * connection sees its own jobs only.
 */
export const jobEndpoints = <const Name extends string>(name: Name, base: "/jobs" | "/imports") => {
  const what = base === "/jobs" ? "jobs" : "import jobs"
  const path = PathParams("The job's id.")
  return HttpApiGroup.make(name)
    .annotate(
      OpenApi.Description,
      base === "/jobs"
        ? "Background jobs of the connection (imports and image processing): poll them, retry failed or paused ones."
        : "Batch imports of 1-50 records of any catalog resource, as a dry run (a synchronous report) or a background job."
    )
    .add(
      HttpApiEndpoint.get("list", base, { query: JobListQuery, success: JobListResponse, error: requestErrors })
        .annotate(OpenApi.Summary, `List the connection's ${what}`)
        .annotate(
          OpenApi.Description,
          "A cursor page in id order (oldest first). Any valid key; only the connection's own jobs."
        )
        .annotate(OpenApi.Transform, operationDocs(jobListExamples(base), JobListQuery)),
      HttpApiEndpoint.get("get", `${base}/:id`, {
        params: path,
        success: JobDetailResponse,
        error: [...requestErrors, NotFound]
      })
        .annotate(OpenApi.Summary, `Read one of the connection's ${what}, with its report`)
        .annotate(
          OpenApi.Description,
          "Poll it until state is completed, failed or paused; per-record results are in the report (import jobs)."
        )
        .annotate(OpenApi.Transform, operationDocs(jobGetExamples(base), path)),
      HttpApiEndpoint.post("retry", `${base}/:id/retry`, {
        params: path,
        headers: IdempotencyHeaders,
        success: Accepted,
        error: [...requestErrors, NotFound, Conflict]
      })
        .annotate(OpenApi.Summary, "Restart a failed or paused job")
        .annotate(OpenApi.Transform, operationDocs(jobRetryExamples(base), path, IdempotencyHeaders))
        .annotate(
          OpenApi.Description,
          "Re-runs only the records that are not applied (never the applied ones); the report's rerun lists them. Needs the write scopes of those records and a key of the job's connection. No body."
        )
    )
}

export const JobsApi = jobEndpoints("jobs", "/jobs").middleware(Authentication)
