import { Ids, Inventory } from "@catalog-sync/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Conflict, NotFound, requestErrors } from "../ApiErrors.js"
import { Authentication } from "../Authentication.js"
import { operationDocs } from "../Examples.js"
import { inventoryGetExamples, inventoryListExamples, inventoryWriteExamples } from "./Examples.js"
import { listFields, Outcome, RecordResponse } from "../Catalog/Api.js"
import { documented, IdempotencyHeaders, PageCursor, PathParams, strict, UuidParameter } from "../Common.js"

/** GET /inventory query: limit and cursor (spec 4.3) and the filters documented in docs/spec-gaps.md. */
export const InventoryListQuery = Schema.Struct({
  limit: listFields.limit,
  cursor: Schema.optional(PageCursor("an inventory item id")),
  source_kind: Schema.optional(
    Inventory.SourceKind.annotate(
      documented({
        type: "string",
        enum: Inventory.SourceKind.literals,
        description: "Only cards of products or only cards of options."
      })
    )
  ),
  source_id: Schema.optional(UuidParameter("Only the card of this product or option.")),
  location_id: Schema.optional(UuidParameter("Only cards with a balance at this location."))
}).annotate(strict)

export const InventoryListResponse = Schema.Struct({
  request_id: Ids.UUID,
  records: Schema.Array(Inventory.StockCardRecord),
  next_cursor: Schema.NullOr(Ids.UUID),
  has_more: Schema.Boolean
})

export const StockWriteResponse = Schema.Struct({
  request_id: Ids.UUID,
  outcome: Outcome.annotate({
    description:
      "created: the location's balance is new; updated: physical stock changed; unchanged: it already had that value."
  }),
  record: Inventory.StockCardRecord,
  event: Inventory.StockEventRecord,
  replayed: Schema.optionalKey(
    Schema.Boolean.annotate({ description: "A repeated event_id or Idempotency-Key: the original result." })
  )
})

const cardPath = PathParams("The inventory item (stock card) id, never the product id.")

export const InventoryApi = HttpApiGroup.make("inventory")
  .annotate(
    OpenApi.Description,
    "Physical stock: stock cards of products and options with a balance per location. Needs the stock package and the inventory module."
  )
  .add(
    HttpApiEndpoint.get("list", "/inventory", {
      query: InventoryListQuery,
      success: InventoryListResponse,
      error: requestErrors
    })
      .annotate(OpenApi.Summary, "List stock cards")
      .annotate(
        OpenApi.Description,
        "A cursor page of stock cards in id order, with their balances. stock:read; the company needs the stock package and inventory module."
      )
      .annotate(OpenApi.Transform, operationDocs(inventoryListExamples, InventoryListQuery)),
    HttpApiEndpoint.get("get", "/inventory/:id", {
      params: cardPath,
      success: RecordResponse(Inventory.StockCardRecord),
      error: [...requestErrors, NotFound]
    })
      .annotate(OpenApi.Summary, "Read one stock card")
      .annotate(
        OpenApi.Description,
        "id is the inventory item (stock card) id, never the product id. Balances carry the location revisions."
      )
      .annotate(OpenApi.Transform, operationDocs(inventoryGetExamples, cardPath)),
    HttpApiEndpoint.post("write", "/inventory", {
      headers: IdempotencyHeaders,
      payload: Inventory.StockWrite,
      success: StockWriteResponse,
      error: [...requestErrors, Conflict]
    })
      .annotate(OpenApi.Summary, "Write physical stock at a location")
      .annotate(OpenApi.Transform, operationDocs(inventoryWriteExamples, IdempotencyHeaders))
      .annotate(
        OpenApi.Description,
        "set, in or out change physical stock only. stock:write; the location must be assigned to the connection as writable; revision is 0 for a new balance, else the location's current revision."
      )
  )
  .middleware(Authentication)
