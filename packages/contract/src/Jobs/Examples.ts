/** Examples of the job endpoints, under /jobs (every kind) and /imports (import jobs). */
import type { Import, Job } from "@catalog-sync/core"
import type { Schema } from "effect"
import { at, ids } from "../ExampleData.js"
import {
  errorExample,
  exampleRequestId,
  type Examples,
  idempotencyConflicts,
  rateLimited,
  type OperationExamples
} from "../Examples.js"

type JobRecord = Schema.Codec.Encoded<typeof Job.JobRecord>
type Report = Schema.Codec.Encoded<typeof Import.ImportReport>

export const queuedImport = {
  id: ids.importJob,
  kind: "import",
  state: "queued",
  counts: { total: 2, created: 0, updated: 0, unchanged: 0, failed: 0, pending: 2 },
  run: 1,
  attempts: 0,
  failure: null,
  created_at: at.updated,
  started_at: null,
  finished_at: null,
  updated_at: at.updated
} satisfies JobRecord

export const completedImport = {
  ...queuedImport,
  state: "completed",
  counts: { total: 2, created: 1, updated: 0, unchanged: 0, failed: 1, pending: 0 },
  attempts: 1,
  started_at: "2025-01-14T09:42:51.219Z",
  finished_at: "2025-01-14T09:42:51.486Z",
  updated_at: "2025-01-14T09:42:51.486Z"
} satisfies JobRecord

const failedMedia = {
  id: ids.mediaJob,
  kind: "media",
  state: "paused",
  counts: { total: 1, created: 0, updated: 0, unchanged: 0, failed: 0, pending: 1 },
  run: 1,
  attempts: 1,
  failure: {
    code: "storage_denied",
    message: "writing the processed image: EACCES; fix the storage, then retry the job"
  },
  created_at: at.created,
  started_at: at.created,
  finished_at: at.created,
  updated_at: at.created
} satisfies JobRecord

/** The report of `completedImport`: one record applied, one failed with the upsert endpoint's code. */
export const importReport = {
  dry_run: false,
  run: 1,
  total: 2,
  created: 1,
  updated: 0,
  unchanged: 0,
  failed: 1,
  pending: 0,
  rerun: [],
  records: [
    {
      index: 0,
      resource: "categories",
      external_id: "armchairs",
      status: "applied",
      outcome: "created",
      id: ids.importedCategory,
      error: null,
      run: 1
    },
    {
      index: 1,
      resource: "products",
      external_id: "chair-oslo",
      status: "failed",
      outcome: null,
      id: null,
      error: {
        code: "unresolved_reference",
        message: '$.category_ids[0]: no categories record external_id "lounge-chairs" in this connection',
        details: [
          {
            path: "$.records[1].body.category_ids[0]",
            message: 'no categories record external_id "lounge-chairs" in this connection'
          }
        ]
      },
      run: 1
    }
  ]
} satisfies Report

export const jobLimitReached: Examples = {
  job_limit_reached: errorExample("20 pending jobs on this connection", {
    code: "job_limit_reached",
    message: "this connection has 20 pending (queued or running) jobs; retry when one has finished",
    retry_after: 5
  }),
  ...rateLimited
}

const notFound = (what: "imports" | "jobs"): Examples => ({
  not_found: errorExample("No such job of this connection", {
    code: "not_found",
    message: `no ${what === "imports" ? "import" : "job"} ${ids.unknown} of this connection`,
    details: { resource: what }
  })
})

export const jobListExamples = (base: "/jobs" | "/imports"): OperationExamples => {
  const records = base === "/jobs" ? [failedMedia, completedImport] : [completedImport]
  return {
    responses: {
      200: {
        page: {
          summary: "The connection's jobs, oldest first",
          value: { request_id: exampleRequestId, records, next_cursor: ids.importJob, has_more: true }
        },
        last: {
          summary: "The last page",
          value: { request_id: exampleRequestId, records, next_cursor: null, has_more: false }
        }
      },
      422: {
        validation_failed: {
          summary: "limit outside 1-100",
          value: {
            request_id: exampleRequestId,
            error: {
              code: "validation_failed",
              message: "query parameters are not valid",
              details: [{ path: "query.limit", message: "must be a whole number from 1 to 100" }]
            }
          }
        }
      }
    }
  }
}

export const jobGetExamples = (base: "/jobs" | "/imports"): OperationExamples => ({
  responses: {
    200: {
      completed: {
        summary: "A finished import: counts and one result per record",
        value: { request_id: exampleRequestId, job: completedImport, report: importReport }
      },
      stopped: {
        summary:
          "Stopped because its key was revoked while it waited (spec 5.4): retry it with an active key of the connection",
        value: {
          request_id: exampleRequestId,
          job: {
            ...queuedImport,
            state: "failed",
            attempts: 1,
            failure: {
              code: "key_revoked",
              message:
                "the API key was revoked at 2025-01-14T09:40:00.000Z; the job stopped. Retry it with an active key of the same connection"
            },
            started_at: "2025-01-14T09:42:51.219Z",
            finished_at: "2025-01-14T09:42:51.230Z",
            updated_at: "2025-01-14T09:42:51.230Z"
          },
          report: {
            ...importReport,
            created: 0,
            failed: 0,
            pending: 2,
            records: importReport.records.map((r) => ({
              ...r,
              status: "pending" as const,
              outcome: null,
              id: null,
              error: null
            }))
          }
        }
      },
      queued: {
        summary: "Still queued: poll again",
        value: {
          request_id: exampleRequestId,
          job: queuedImport,
          report: { ...importReport, created: 0, failed: 0, pending: 2, records: [] }
        }
      },
      ...(base === "/jobs"
        ? {
            paused: {
              summary: "A media job paused by a storage refusal (no report)",
              value: { request_id: exampleRequestId, job: failedMedia, report: null }
            }
          }
        : {})
    },
    404: notFound(base === "/jobs" ? "jobs" : "imports")
  }
})

export const jobRetryExamples = (base: "/jobs" | "/imports"): OperationExamples => ({
  scopes: base === "/jobs" ? ["media:write"] : ["catalog:write"],
  responses: {
    202: {
      queued: {
        summary: "Queued again: run +1; only the records not applied (here the failed one) run again",
        value: {
          request_id: exampleRequestId,
          job: {
            ...completedImport,
            state: "queued",
            run: 2,
            started_at: null,
            finished_at: null,
            updated_at: at.later
          }
        }
      }
    },
    404: notFound(base === "/jobs" ? "jobs" : "imports"),
    409: {
      job_not_retryable: errorExample("A completed import whose records were all applied: nothing to retry", {
        code: "job_not_retryable",
        message: "this import completed with every record applied; there is nothing to retry",
        details: { state: "completed" }
      }),
      ...idempotencyConflicts
    },
    429: jobLimitReached
  }
})
