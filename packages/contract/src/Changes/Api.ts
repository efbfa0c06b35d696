import { ChangeCursor, ChangeFeed, Ids } from "@catalog-sync/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { requestErrors } from "../ApiErrors.js"
import { Authentication } from "../Authentication.js"
import { operationDocs } from "../Examples.js"
import { changesExamples } from "./Examples.js"
import { documented, Limit, strict } from "../Common.js"

/** Resources whose changes the feed carries; `resource=` narrows to some of them. */
export const feedResources = [
  "products",
  "categories",
  "collections",
  "brands",
  "customization-types",
  "customization-groups",
  "customization-options",
  "media",
  "inventory"
] as const

const isFeedResource = (name: string) => (feedResources as ReadonlyArray<string>).includes(name)

const resourceListPattern = `^(${feedResources.join("|")})(,(${feedResources.join("|")}))*$`

const ResourceList = Schema.String.check(
  Schema.makeFilter(
    (value: string) =>
      value.split(",").every(isFeedResource) || `must be a comma-separated list of ${feedResources.join(", ")}`,
    // Random strings almost never pass the filter: arbitraries generate lists of the names directly.
    { arbitraryConstraint: { patterns: [{ source: resourceListPattern, flags: "" }] } }
  )
)

/** The query of `GET /changes`. */
export const ChangesQuery = Schema.Struct({
  cursor: Schema.optional(
    ChangeCursor.ChangeCursorString.annotate(
      documented({
        type: "string",
        pattern: `^${ChangeCursor.pattern}$`,
        description: "next_cursor of the previous call, or a list's change_cursor; omit it to start at the beginning.",
        examples: ["c1_2bq"]
      })
    )
  ),
  limit: Schema.optional(Limit),
  resource: Schema.optional(
    ResourceList.annotate(
      documented({
        type: "string",
        pattern: resourceListPattern,
        description: `Only changes of these resources, comma-separated: ${feedResources.join(", ")}.`,
        examples: ["products,categories"]
      })
    )
  )
}).annotate(strict)

/** The response of `GET /changes`: a page of changes and the cursor to continue from. */
export const ChangesResponse = Schema.Struct({
  request_id: Ids.UUID,
  records: Schema.Array(ChangeFeed.Change),
  next_cursor: Schema.String.annotate({
    description: "Always present, also on an empty page: persist it after every call."
  }),
  has_more: Schema.Boolean
})

/** The change feed endpoint group. */
export const ChangesApi = HttpApiGroup.make("changes")
  .annotate(
    OpenApi.Description,
    "The change feed for two-way sync: poll it from a cursor, persist next_cursor after every call, skip your own writes by origin_connection_id."
  )
  .add(
    HttpApiEndpoint.get("changes", "/changes", { query: ChangesQuery, success: ChangesResponse, error: requestErrors })
      .annotate(OpenApi.Summary, "Follow the change feed")
      .annotate(
        OpenApi.Description,
        "Every committed change of the company after the cursor, exactly once, in commit order. A change is listed when the key may read what it touched (catalog, prices, costs, stock, media); the others still advance next_cursor."
      )
      .annotate(OpenApi.Transform, operationDocs(changesExamples, ChangesQuery))
  )
  .middleware(Authentication)
