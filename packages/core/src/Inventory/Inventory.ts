/**
 * Stock cards (inventory items) and their per-location balances: the StockWrite body of POST /inventory
 * (spec 2.11), the records the inventory endpoints return and the shapes the InventoryRepository stores.
 */
import { Schema } from "effect"
import { Int, NonNegativeInt, strict } from "../Resources/CommonFields.js"
import { Quantity } from "../internal/Shared/Decimal.js"
import { type CompanyId, type ConnectionId, describedUuid, type RecordId, UUID } from "../Shared/Ids.js"
import { Reference } from "../Shared/Reference.js"
import { Text } from "../internal/Shared/Text.js"
import type { JsonObject } from "../internal/json.js"

/** product for direct products; option for fabrics and other customization options. */
export const SourceKind = Schema.Literals(["product", "option"])
export type SourceKind = typeof SourceKind.Type

/** A stock write: set the quantity, or move stock in or out. */
export const StockAction = Schema.Literals(["set", "in", "out"])

/** POST /inventory body: all keys required, no others. */
export const StockWrite = Schema.Struct({
  event_id: describedUuid("Unique per event: a repeat with the same body replays the original result."),
  source_kind: SourceKind,
  source_id: Reference,
  location_id: describedUuid("A location assigned to the connection as writable."),
  action: StockAction,
  quantity: Quantity.annotate({ description: "Whole numbers for products counted in pieces." }),
  revision: NonNegativeInt.annotate({
    description: "0 for a new balance; otherwise the location revision read from the item's balances."
  }),
  note: Text(1, 1000)
}).annotate({ identifier: "StockWrite", ...strict })
export type StockWrite = typeof StockWrite.Type

/** One location's balance as the API returns it. */
export const BalanceRecord = Schema.Struct({
  location_id: UUID,
  physical: Schema.String,
  reserved: Schema.String.annotate({ description: "Held by orders; changed outside this API." }),
  incoming: Schema.String.annotate({ description: "Expected from purchases; changed outside this API." }),
  revision: Int.annotate({ description: "Send it as `revision` in the next StockWrite for this location." }),
  updated_at: Schema.String
}).annotate({ identifier: "StockBalance" })
export type BalanceRecord = typeof BalanceRecord.Type

/** A stock card as the API returns it. Its id is not the product's or option's id. */
export const StockCardRecord = Schema.Struct({
  id: UUID.annotate({ description: "The inventory item (stock card) id, used by GET /inventory/{id}." }),
  source_kind: SourceKind,
  source_id: UUID,
  source_external_id: Schema.NullOr(Schema.String).annotate({
    description: "The caller's connection mapping of the product or option, null when it has none."
  }),
  created_at: Schema.String,
  updated_at: Schema.String,
  balances: Schema.Array(BalanceRecord)
}).annotate({ identifier: "StockCard" })
export type StockCardRecord = typeof StockCardRecord.Type

/** The stock event a write recorded, as the API returns it. */
export const StockEventRecord = Schema.Struct({
  event_id: UUID,
  item_id: UUID,
  location_id: UUID,
  action: StockAction,
  quantity: Schema.String,
  note: Schema.String,
  physical_before: Schema.String,
  physical_after: Schema.String,
  revision: Int.annotate({ description: "The location revision after the write." }),
  connection_id: UUID,
  at: Schema.String
}).annotate({ identifier: "StockEvent" })
export type StockEventRecord = typeof StockEventRecord.Type

/** A stock card as stored: the product and location it counts. */
export interface StockItem {
  readonly id: RecordId
  readonly companyId: CompanyId
  readonly sourceKind: SourceKind
  readonly sourceId: RecordId
  readonly createdAt: string
}

/** The quantities of a stock card. */
export interface StockBalance {
  readonly companyId: CompanyId
  readonly itemId: RecordId
  readonly locationId: string
  readonly physical: string
  readonly reserved: string
  readonly incoming: string
  /** 1 for a new balance; every change adds one. */
  readonly revision: number
  readonly updatedAt: string
}

/** A stock card with its balances, ordered by location id. */
export interface StockCard extends StockItem {
  readonly balances: ReadonlyArray<StockBalance>
}

/** A recorded write, kept so that a repeated event_id replays its original result. */
export interface StockEvent {
  readonly companyId: CompanyId
  readonly eventId: string
  readonly connectionId: ConnectionId
  /** Hash input of the request: a repeat must match it to replay. */
  readonly fingerprint: string
  readonly itemId: RecordId
  readonly locationId: string
  /** The response of the original write (outcome, record, event). */
  readonly result: JsonObject
  readonly at: string
}

/** Balances in location id order, as the repository returns them. */
export const byLocation = (a: StockBalance, b: StockBalance): number =>
  a.locationId < b.locationId ? -1 : a.locationId > b.locationId ? 1 : 0

/** The card with one location's balance replaced (or added). */
export const withBalance = (card: StockCard, balance: StockBalance): StockCard => ({
  ...card,
  balances: [...card.balances.filter((b) => b.locationId !== balance.locationId), balance].sort(byLocation)
})

/** The card as the API returns it. */
export const renderCard = (card: StockCard, sourceExternalId: string | null): StockCardRecord => ({
  id: card.id,
  source_kind: card.sourceKind,
  source_id: card.sourceId,
  source_external_id: sourceExternalId,
  created_at: card.createdAt,
  updated_at: card.balances.reduce((latest, b) => (b.updatedAt > latest ? b.updatedAt : latest), card.createdAt),
  balances: card.balances.map((b) => ({
    location_id: b.locationId,
    physical: b.physical,
    reserved: b.reserved,
    incoming: b.incoming,
    revision: b.revision,
    updated_at: b.updatedAt
  }))
})

/** The catalog resource whose records a source kind names (and whose mappings resolve {external_id}). */
export const sourceResource = (kind: SourceKind) =>
  kind === "product" ? ("products" as const) : ("customization-options" as const)
