import { Effect, Option } from "effect"
import { CurrentPrincipal } from "../../Auth/Principal.js"
import { RecordNotFound } from "../../Shared/Errors.js"
import type { RecordId } from "../../Shared/Ids.js"
import { makeCardRenderer } from "./CardRendering.js"
import type { SourceKind, StockCardRecord } from "../../Inventory/Inventory.js"
import { InventoryRepository } from "../../Inventory/InventoryRepository.js"
import { requireStock } from "./StockAccess.js"

/** The page and filters of a stock list. */
export interface InventoryListParams {
  readonly limit: number
  readonly cursor?: string | undefined
  readonly sourceKind?: SourceKind | undefined
  readonly sourceId?: string | undefined
  readonly locationId?: string | undefined
}

/** A page of stock cards. */
export interface InventoryPage {
  readonly records: ReadonlyArray<StockCardRecord>
  readonly next_cursor: string | null
  readonly has_more: boolean
}

/** The stock reads: one card (GET /inventory/{id}) and a page of cards (GET /inventory). */
export const makeStockReads = Effect.gen(function* () {
  const repository = yield* InventoryRepository
  const renderFor = yield* makeCardRenderer

  /** One card by its inventory item id; a product or option id is not found. */
  const get = (id: string) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      yield* requireStock(principal, "stock:read")
      const card = yield* repository.findItem(principal.company.id, id as RecordId)
      if (Option.isNone(card)) {
        return yield* new RecordNotFound({
          resource: "inventory",
          message: `no inventory item ${id} in this company (ids are stock card ids, not product ids)`
        })
      }
      const render = yield* renderFor(principal, [card.value])
      return render(card.value)
    })

  /** A cursor page of cards in id order. */
  const list = (params: InventoryListParams) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      yield* requireStock(principal, "stock:read")
      const rows = yield* repository.listItems(principal.company.id, {
        limit: params.limit + 1,
        cursor: params.cursor as RecordId | undefined,
        sourceKind: params.sourceKind,
        sourceId: params.sourceId as RecordId | undefined,
        locationId: params.locationId
      })
      const page = rows.slice(0, params.limit)
      const render = yield* renderFor(principal, page)
      const hasMore = rows.length > params.limit
      return {
        records: page.map(render),
        next_cursor: hasMore ? page[page.length - 1]!.id : null,
        has_more: hasMore
      } satisfies InventoryPage
    })

  return { get, list } as const
})
