import { Schema } from "effect"
import type { Principal } from "../Auth/Principal.js"
import { type ReadMode, visibleDocument } from "../internal/Catalog/Access.js"
import { type Definitions, definitions } from "../Resources/Registry.js"
import type { ResourceName } from "../Resources/Resource.js"
import type { Document, ResourceDefinition } from "../internal/Resources/ResourceDefinition.js"
import type { JsonObjectBuilder } from "../internal/json.js"
import { documentTextOf, type StoredRecord } from "./StoredRecord.js"
import { membersWithout } from "../internal/Catalog/JsonText.js"
import { UUID } from "../Shared/Ids.js"
import { Int } from "../Resources/CommonFields.js"

/** A record of `Name` as returned: the type of its resource's record schema. */
export type RecordOf<Name extends ResourceName> = Definitions[Name]["record"]["Type"]

const Decimal = Schema.NullOr(Schema.String)

/** A record as `mode=prices` returns it: identity and the price fields the caller may read. */
export const PriceRecord = Schema.Struct({
  id: UUID,
  external_id: Schema.NullOr(Schema.String),
  revision: Int,
  updated_at: Schema.String,
  price: Schema.optionalKey(Decimal),
  market_price: Schema.optionalKey(Decimal),
  tax_rate: Schema.optionalKey(Decimal),
  tax_model: Schema.optionalKey(Schema.String),
  cost: Schema.optionalKey(Decimal),
  pricing_mode: Schema.optionalKey(Schema.String),
  pricing_value: Schema.optionalKey(Decimal),
  fields: Schema.optionalKey(
    Schema.Array(Schema.Struct({ id: UUID, external_id: Schema.NullOr(Schema.String), coefficient: Schema.String }))
  ).annotate({ description: "A product's selection fields with their coefficients (prices, spec 5.9)." })
}).annotate({ identifier: "PriceRecord" })
export type PriceRecord = typeof PriceRecord.Type

/** What a read in `mode` returns of a record of `Name`. */
export type RecordView<Name extends ResourceName, Mode extends ReadMode = ReadMode> = Mode extends "catalog"
  ? RecordOf<Name>
  : PriceRecord

const productState = (record: StoredRecord): "inactive" | "active" | "archived" =>
  record.archivedAt !== null ? "archived" : record.data.active === true ? "active" : "inactive"

/**
 * A record as the caller may see it: identity and revision, then the document without the price or
 * cost fields its scopes do not cover. In prices mode only the price fields are returned.
 */
export const renderRecord = (
  definition: ResourceDefinition,
  record: StoredRecord,
  externalId: string | null,
  principal: Principal,
  mode: ReadMode
): Document => {
  const isProduct = definition.name === "products"
  // Built in one object, in the order of the keys of the answer (an assignment to a key the document
  // already set keeps its place, as a spread would): identity, the visible document, the timestamps.
  const view: JsonObjectBuilder = { id: record.id, external_id: externalId, revision: record.revision }
  if (isProduct && mode === "catalog") {
    view.state = productState(record)
    view.archived_at = record.archivedAt
  }
  visibleDocument(definition, record.data, principal.scopes, mode, view)
  if (isProduct && principal.scopes.has("prices:read")) view.tax_model = principal.company.tax_model
  if (mode === "catalog") view.created_at = record.createdAt
  view.updated_at = record.updatedAt
  return view
}

/**
 * `renderRecord` typed by its resource and mode. Its document was decoded by the resource's body schema
 * when it was written and completed by the resource's defaults, so the view has the shape the record
 * schema (or PriceRecord) describes. The HTTP layer serialises views as they are (a second encode cost
 * more than the read), so that shape is held by tests: the API fuzzer validates every answer against the
 * OpenAPI document, whose records allow no other keys.
 */
export const recordView = <Name extends ResourceName, Mode extends ReadMode>(
  resource: Name,
  record: StoredRecord,
  externalId: string | null,
  principal: Principal,
  mode: Mode
): RecordView<Name, Mode> =>
  renderRecord(definitions[resource], record, externalId, principal, mode) as RecordView<Name, Mode>

/** The keys a view sets itself: a document key among them would move or replace one of the view's own. */
const viewKeys: ReadonlyArray<string> = [
  "id",
  "external_id",
  "revision",
  "state",
  "archived_at",
  "tax_model",
  "created_at",
  "updated_at"
]

/**
 * How a resource's stored text becomes a view's members: which keys each kind of caller may not see, or
 * null when a view must always be built (a document key could be one of the view's own).
 */
interface Splice {
  /** Selection fields: their coefficients are prices, hidden inside each entry (see `visibleDocument`). */
  readonly hasFields: boolean
  readonly priceKeys: ReadonlySet<string>
  readonly costKeys: ReadonlySet<string>
  readonly priceAndCostKeys: ReadonlySet<string>
}

const splices = new Map<ResourceDefinition, Splice | null>()

const spliceOf = (definition: ResourceDefinition): Splice | null => {
  let splice = splices.get(definition)
  if (splice === undefined) {
    const keys = Object.keys(definition.defaults)
    splice = keys.some((key) => viewKeys.includes(key))
      ? null
      : {
          hasFields: keys.includes("fields"),
          priceKeys: new Set(definition.priceKeys),
          costKeys: new Set(definition.costKeys),
          priceAndCostKeys: new Set([...definition.priceKeys, ...definition.costKeys])
        }
    splices.set(definition, splice)
  }
  return splice
}

const nothingHidden: ReadonlySet<string> = new Set()

/**
 * The visible members of a stored document's text, as `visibleDocument` would keep them in catalog mode,
 * without its braces; undefined when they cannot be cut from the text (a caller without prices:read of a
 * resource with selection fields, whose coefficients are hidden inside each entry).
 */
const visibleMembers = (splice: Splice, text: string, scopes: ReadonlySet<string>): string | undefined => {
  const seePrices = scopes.has("prices:read")
  if (!seePrices && splice.hasFields) return undefined
  const seeCosts = scopes.has("costs:read")
  const hidden =
    seePrices && seeCosts
      ? nothingHidden
      : seePrices
        ? splice.costKeys
        : seeCosts
          ? splice.priceKeys
          : splice.priceAndCostKeys
  // JSON.stringify's text of an object starts with `{"` unless it is `{}`.
  return hidden.size === 0 ? text.slice(1, -1) : membersWithout(text, hidden)
}

/**
 * `renderRecord` as JSON text. When the record's stored text is known (StoredRecord's
 * `documentTextOf`), its visible members are spliced between the view's own keys, in the order
 * `renderRecord` gives them: the same answer without parsing, copying and serialising the document again,
 * which cost a list page of 20 records about as much as the rest of its work.
 */
export const recordJson = (
  definition: ResourceDefinition,
  record: StoredRecord,
  externalId: string | null,
  principal: Principal,
  mode: ReadMode
): string => {
  const text = mode === "catalog" ? documentTextOf(record) : undefined
  const splice = text === undefined ? null : spliceOf(definition)
  const members = splice === null ? undefined : visibleMembers(splice, text!, principal.scopes)
  if (members === undefined) return JSON.stringify(renderRecord(definition, record, externalId, principal, mode))
  const isProduct = definition.name === "products"
  let json = `{"id":${JSON.stringify(record.id)},"external_id":${JSON.stringify(externalId)},"revision":${record.revision}`
  if (isProduct) {
    // The product's `active` as its index holds it (extracted from the document at every write), so that
    // the document need not be parsed for it.
    const state = record.archivedAt !== null ? "archived" : record.index.active === true ? "active" : "inactive"
    json += `,"state":"${state}","archived_at":${JSON.stringify(record.archivedAt)}`
  }
  if (members !== "") json += "," + members
  if (isProduct && principal.scopes.has("prices:read"))
    json += `,"tax_model":${JSON.stringify(principal.company.tax_model)}`
  return json + `,"created_at":${JSON.stringify(record.createdAt)},"updated_at":${JSON.stringify(record.updatedAt)}}`
}
