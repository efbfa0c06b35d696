import { Context, type Effect, type Option } from "effect"
import type { PersistenceError, RevisionConflict } from "../Shared/Errors.js"
import type { CompanyId, RecordId } from "../Shared/Ids.js"
import type { SourceKind, StockBalance, StockCard, StockEvent, StockItem } from "./Inventory.js"

/** A page of stock cards in id order; `cursor` is the last id of the previous page. */
export interface InventoryListQuery {
  readonly limit: number
  readonly cursor?: RecordId | undefined
  readonly sourceKind?: SourceKind | undefined
  readonly sourceId?: RecordId | undefined
  /** Only cards with a balance at this location. */
  readonly locationId?: string | undefined
}

/**
 * Persistence of stock cards, their per-location balances and the recorded stock events. Every method is
 * scoped by company. A card's balances come back ordered by location id.
 */
export class InventoryRepository extends Context.Service<
  InventoryRepository,
  {
    readonly findItem: (companyId: CompanyId, id: RecordId) => Effect.Effect<Option.Option<StockCard>, PersistenceError>
    readonly findItemBySource: (
      companyId: CompanyId,
      sourceKind: SourceKind,
      sourceId: RecordId
    ) => Effect.Effect<Option.Option<StockCard>, PersistenceError>
    /**
     * The source's card: `item` is inserted unless the source already has one (one card per company,
     * source kind and source record), in which case the existing card is returned, also when a concurrent
     * writer created it first.
     */
    readonly ensureItem: (item: StockItem) => Effect.Effect<StockCard, PersistenceError>
    /** Up to `query.limit` cards after the cursor, in id order. */
    readonly listItems: (
      companyId: CompanyId,
      query: InventoryListQuery
    ) => Effect.Effect<ReadonlyArray<StockCard>, PersistenceError>
    /**
     * Writes a location's balance as a compare-and-set on its revision: `expectedRevision` 0 inserts a new
     * balance, else the stored revision must still be `expectedRevision`. Otherwise RevisionConflict with
     * the stored revision, so that two writers with the same revision never both win.
     */
    readonly saveBalance: (
      balance: StockBalance,
      expectedRevision: number
    ) => Effect.Effect<void, RevisionConflict | PersistenceError>
    readonly findEvent: (
      companyId: CompanyId,
      eventId: string
    ) => Effect.Effect<Option.Option<StockEvent>, PersistenceError>
    /** Records an event; false (and nothing written) when the company already has one with this event id. */
    readonly insertEvent: (event: StockEvent) => Effect.Effect<boolean, PersistenceError>
  }
>()("@catalog-sync/core/InventoryRepository") {}
