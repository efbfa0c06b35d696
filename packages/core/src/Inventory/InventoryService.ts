import { Context, Effect, Layer } from "effect"
import { makeStockReads } from "../internal/Inventory/StockReads.js"
import { makeStockWrites } from "../internal/Inventory/StockWrites.js"

export { requireStock } from "../internal/Inventory/StockAccess.js"
export type { InventoryListParams, InventoryPage } from "../internal/Inventory/StockReads.js"
export type { StockOutcome, StockWriteResult } from "../internal/Inventory/StockWrites.js"

/**
 * The inventory use cases: stock writes (POST /inventory, `internal/Inventory/StockWrites.ts`), reading
 * one card and listing cards (`internal/Inventory/StockReads.ts`). Every method acts for the
 * CurrentPrincipal inside its company and needs the company's stock features.
 */
export class InventoryService extends Context.Service<InventoryService>()("@catalog-sync/core/InventoryService", {
  make: Effect.gen(function* () {
    const { authorizeWrite, write, writeCommand } = yield* makeStockWrites
    const { get, list } = yield* makeStockReads
    return { authorizeWrite, write, writeCommand, get, list } as const
  })
}) {
  /** The service over its ports (the layer Effect 3's `Effect.Service` generated). */
  static readonly Default = Layer.effect(this, this.make)
}
