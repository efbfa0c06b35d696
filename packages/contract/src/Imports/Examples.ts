/** Examples of POST /imports. */
import type { Import } from "@catalog-sync/core"
import type { Schema } from "effect"
import {
  exampleRequestId,
  idempotencyConflicts,
  idempotencyKeyInvalid,
  issuesExample,
  type OperationExamples
} from "../Examples.js"
import { importReport, jobLimitReached, queuedImport } from "../Jobs/Examples.js"

const batch = {
  records: [
    { resource: "categories", body: { external_id: "armchairs", name: "Armchairs" } },
    {
      resource: "products",
      body: {
        external_id: "chair-oslo",
        name: "Oslo armchair",
        sku: "OA-1",
        category_ids: [{ external_id: "armchairs" }],
        unit: "piece"
      }
    }
  ]
} satisfies Schema.Codec.Encoded<typeof Import.ImportBody>

export const submitExamples: OperationExamples = {
  scopes: ["catalog:write"],
  request: {
    batch: {
      summary: "A category and a product that uses it (any order: references resolve over several passes)",
      value: batch
    },
    dry_run: { summary: "Check a batch without keeping anything", value: { dry_run: true, ...batch } }
  },
  responses: {
    200: {
      dry_run: {
        summary: "dry_run: the report; everything rolled back",
        value: {
          request_id: exampleRequestId,
          report: {
            ...importReport,
            dry_run: true,
            created: 2,
            failed: 0,
            records: [
              {
                index: 0,
                resource: "categories",
                external_id: "armchairs",
                status: "applied",
                outcome: "created",
                id: null,
                error: null,
                run: 1
              },
              {
                index: 1,
                resource: "products",
                external_id: "chair-oslo",
                status: "applied",
                outcome: "created",
                id: null,
                error: null,
                run: 1
              }
            ]
          }
        }
      }
    },
    202: {
      queued: { summary: "Queued: poll GET /imports/{id}", value: { request_id: exampleRequestId, job: queuedImport } }
    },
    409: idempotencyConflicts,
    422: {
      validation_failed: issuesExample(
        "More than 50 records, or a record without resource or body",
        "validation_failed",
        "the body is not valid",
        [{ path: "$.records", message: "must hold 1 to 50 records" }]
      ),
      ...idempotencyKeyInvalid
    },
    429: jobLimitReached
  }
}
