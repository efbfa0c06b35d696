import { Ids, Import } from "@catalog-sync/core"
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { Conflict, requestErrors } from "../ApiErrors.js"
import { Authentication } from "../Authentication.js"
import { operationDocs } from "../Examples.js"
import { submitExamples } from "./Examples.js"
import { IdempotencyHeaders } from "../Common.js"
import { Accepted, jobEndpoints } from "../Jobs/Api.js"

/** 200: a dry run's report; nothing was kept. */
export const DryRunResponse = Schema.Struct({
  request_id: Ids.UUID,
  report: Import.ImportReport,
  replayed: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "DryRunResponse" })

/** POST /imports and the job endpoints of import jobs under /imports. */
export const ImportsApi = jobEndpoints("imports", "/imports")
  .add(
    HttpApiEndpoint.post("submit", "/imports", {
      headers: IdempotencyHeaders,
      payload: Import.ImportBody,
      success: [DryRunResponse, Accepted],
      error: [...requestErrors, Conflict]
    })
      .annotate(OpenApi.Summary, "Import a batch of 1-50 records")
      .annotate(OpenApi.Transform, operationDocs(submitExamples, IdempotencyHeaders))
      .annotate(
        OpenApi.Description,
        "Each record is atomic; a failed record does not cancel the others; references resolve over several passes, each record applied after the records of the body it references, so the body's order is free. dry_run: 200 with the report, everything rolled back; 429 rate_limited (Retry-After: 1) while the company already runs 2 dry runs. Otherwise 202 with the queued job (poll GET /imports/{id}). Needs the write scopes of every record; 429 job_limit_reached at 20 pending jobs per connection."
      )
  )
  .middleware(Authentication)
