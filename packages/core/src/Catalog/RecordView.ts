import { Schema } from "effect"
import type { Principal } from "../Auth/Principal.js"
import { type ReadMode, visibleDocument } from "../internal/Catalog/Access.js"
import { type Definitions, definitions } from "../Resources/Registry.js"
import type { ResourceName } from "../Resources/Resource.js"
import type { Document, ResourceDefinition } from "../internal/Resources/ResourceDefinition.js"
import type { JsonObjectBuilder } from "../internal/json.js"
import type { StoredRecord } from "./StoredRecord.js"
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
