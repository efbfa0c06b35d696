import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Import, Job } from "@catalog-sync/core"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { listFields } from "../Catalog/Api.js"
import { IdempotencyHeaders, PageCursor, PathParams, requestPart, strict } from "../Common.js"

/** GET /jobs and GET /imports query: limit and cursor (spec 4.3). Unknown parameters are refused. */
export const JobListQuery = Schema.Struct({
  limit: listFields.limit,
  cursor: Schema.optional(PageCursor("a job id"))
}).annotations({ ...requestPart("QueryParams"), ...strict })

export const JobListResponse = Schema.Struct({
  request_id: Schema.UUID,
  records: Schema.Array(Job.JobRecord),
  next_cursor: Schema.NullOr(Schema.UUID),
  has_more: Schema.Boolean
})

export const JobDetailResponse = Schema.Struct({
  request_id: Schema.UUID,
  job: Job.JobRecord,
  report: Schema.NullOr(Import.ImportReport).annotations({ description: "The import report: counts and one result per record." })
})

/** 202: a job accepted (queued) by POST /imports or restarted by a retry. */
export const JobAccepted = Schema.Struct({
  request_id: Schema.UUID,
  job: Job.JobRecord,
  replayed: Schema.optional(Schema.Boolean.annotations({ description: "A repeated Idempotency-Key: the job as it was accepted." }))
}).annotations({ identifier: "JobAccepted" })

/**
 * The read and retry endpoints of jobs, under `/jobs` (every kind) or `/imports` (import jobs): a
 * connection sees its own jobs only.
 */
export const jobEndpoints = <const Name extends string>(name: Name, base: "/jobs" | "/imports") => {
  const what = base === "/jobs" ? "jobs" : "import jobs"
  return HttpApiGroup.make(name)
    .add(
      HttpApiEndpoint.get("list", base)
        .setUrlParams(JobListQuery)
        .addSuccess(JobListResponse)
        .annotate(OpenApi.Summary, `List the connection's ${what}`)
        .annotate(OpenApi.Description, "A cursor page in id order (oldest first). Any valid key; only the connection's own jobs.")
    )
    .add(
      HttpApiEndpoint.get("get", `${base}/:id`)
        .setPath(PathParams("The job's id."))
        .addSuccess(JobDetailResponse)
        .annotate(OpenApi.Summary, `Read one of the connection's ${what}, with its report`)
    )
    .add(
      HttpApiEndpoint.post("retry", `${base}/:id/retry`)
        .setPath(PathParams("The job's id."))
        .setHeaders(IdempotencyHeaders)
        .addSuccess(JobAccepted, { status: 202 })
        .annotate(OpenApi.Summary, "Restart a failed or paused job")
        .annotate(
          OpenApi.Description,
          "Re-runs only the records that are not applied (never the applied ones); the report's rerun lists them. Needs the write scopes of those records and a key of the job's connection. No body."
        )
    )
}

export const JobsApi = jobEndpoints("jobs", "/jobs").middleware(Authentication)
