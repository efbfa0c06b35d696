import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { Import } from "@catalog-sync/core"
import { Schema } from "effect"
import { Conflict } from "../ApiErrors.js"
import { Authentication } from "../Authentication.js"
import { operationExamples } from "../Examples.js"
import { submitExamples } from "./Examples.js"
import { IdempotencyHeaders } from "../Common.js"
import { JobAccepted, jobEndpoints } from "../Jobs/Api.js"

/** 200: a dry run's report; nothing was kept. */
export const DryRunResponse = Schema.Struct({
  request_id: Schema.UUID,
  report: Import.ImportReport,
  replayed: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "DryRunResponse" })

/** POST /imports and the job endpoints of import jobs under /imports. */
export const ImportsApi = jobEndpoints("imports", "/imports")
  .add(
    HttpApiEndpoint.post("submit", "/imports")
      .setHeaders(IdempotencyHeaders)
      .setPayload(Import.ImportBody)
      .addSuccess(DryRunResponse)
      .addSuccess(JobAccepted, { status: 202 })
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Import a batch of 1-50 records")
      .annotate(OpenApi.Transform, operationExamples(submitExamples))
      .annotate(
        OpenApi.Description,
        "Each record is atomic; a failed record does not cancel the others; references resolve over several passes, each record applied after the records of the body it references, so the body's order is free. dry_run: 200 with the report, everything rolled back; 429 rate_limited (Retry-After: 1) while the company already runs 2 dry runs. Otherwise 202 with the queued job (poll GET /imports/{id}). Needs the write scopes of every record; 429 job_limit_reached at 20 pending jobs per connection."
      )
  )
  .middleware(Authentication)
