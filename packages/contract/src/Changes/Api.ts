import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ChangeCursor, ChangeFeed } from "@catalog-sync/core"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { operationExamples } from "../Examples.js"
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

const ResourceList = Schema.String.pipe(
  Schema.filter(
    (value) =>
      value.split(",").every((name) => (feedResources as ReadonlyArray<string>).includes(name)) ||
      `must be a comma-separated list of ${feedResources.join(", ")}`,
    // Random strings almost never pass the filter: property tests and the API fuzzer generate lists directly.
    {
      arbitrary: () => (fc) =>
        fc.uniqueArray(fc.constantFrom(...feedResources), { minLength: 1 }).map((names) => names.join(","))
    }
  )
)

/** The query of `GET /changes`. */
export const ChangesQuery = Schema.Struct({
  cursor: Schema.optional(
    ChangeCursor.ChangeCursorString.annotations(
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
    ResourceList.annotations(
      documented({
        type: "string",
        pattern: `^(${feedResources.join("|")})(,(${feedResources.join("|")}))*$`,
        description: `Only changes of these resources, comma-separated: ${feedResources.join(", ")}.`,
        examples: ["products,categories"]
      })
    )
  )
}).annotations(strict)

/** The response of `GET /changes`: a page of changes and the cursor to continue from. */
export const ChangesResponse = Schema.Struct({
  request_id: Schema.UUID,
  records: Schema.Array(ChangeFeed.Change),
  next_cursor: Schema.String.annotations({
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
    HttpApiEndpoint.get("changes", "/changes")
      .setUrlParams(ChangesQuery)
      .addSuccess(ChangesResponse)
      .annotate(OpenApi.Summary, "Follow the change feed")
      .annotate(
        OpenApi.Description,
        "Every committed change of the company after the cursor, exactly once, in commit order. A change is listed when the key may read what it touched (catalog, prices, costs, stock, media); the others still advance next_cursor."
      )
      .annotate(OpenApi.Transform, operationExamples(changesExamples))
  )
  .middleware(Authentication)
