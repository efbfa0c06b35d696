/** Examples of GET /changes. */
import type { ChangeFeed } from "@catalog-sync/core"
import type { Schema } from "effect"
import { at, ids } from "../ExampleData.js"
import { errorExample, exampleRequestId, issuesExample, type OperationExamples } from "../Examples.js"

type Change = Schema.Codec.Encoded<typeof ChangeFeed.Change>

const changes: ReadonlyArray<Change> = [
  {
    resource: "categories",
    id: ids.category,
    external_id: "sofas",
    revision: 1,
    operation: "created",
    origin_connection_id: ids.connection,
    at: at.created
  },
  {
    resource: "products",
    id: ids.product,
    external_id: "sofa-oslo-3",
    revision: 2,
    operation: "updated",
    origin_connection_id: ids.connection,
    at: at.updated
  },
  {
    resource: "inventory",
    id: ids.stockCard,
    external_id: null,
    revision: 1,
    operation: "created",
    origin_connection_id: "01a209ad-0c14-7d3e-8f2a-6b5c4d3e2f10",
    at: at.later
  }
]

export const changesExamples: OperationExamples = {
  responses: {
    200: {
      changes: {
        summary: "Changes after the cursor; persist next_cursor, skip your own origin_connection_id",
        value: { request_id: exampleRequestId, records: changes, next_cursor: "c2_2bt", has_more: false }
      },
      empty: {
        summary: "Nothing new (or nothing you may read): next_cursor still moves on",
        value: { request_id: exampleRequestId, records: [], next_cursor: "c2_2bt", has_more: false }
      }
    },
    403: {
      insufficient_scope: errorExample("A key without any read scope", {
        code: "insufficient_scope",
        message:
          "reading the change feed needs a read scope (catalog:read, prices:read, costs:read, stock:read or media:read)",
        details: { required: ["catalog:read"] }
      })
    },
    422: {
      validation_failed: issuesExample(
        "A cursor this API did not return",
        "validation_failed",
        "query parameters are not valid",
        [{ path: "query.cursor", message: "must be a cursor returned by this API (next_cursor or change_cursor)" }]
      ),
      resource: issuesExample("An unknown resource name", "validation_failed", "query parameters are not valid", [
        {
          path: "query.resource",
          message:
            "must be a comma-separated list of products, categories, collections, brands, customization-types, customization-groups, customization-options, media, inventory"
        }
      ])
    }
  }
}
