import { type Accounts, ApiKey, Company, Ids, Resource, Scope, StoredRecord } from "@catalog-sync/core"
import { Array as Arr, Schema, SchemaTransformation } from "effect"

/**
 * A nullable boolean column. SQLite has no boolean type (and node:sqlite refuses to bind JS booleans),
 * so the logical schema stores 0/1 INTEGER on every engine; decoding also accepts a real boolean in case
 * a driver or a hand-written migration uses one.
 */
export const Flag = Schema.Union([Schema.Literals([0, 1]), Schema.Boolean]).pipe(
  Schema.decodeTo(
    Schema.Boolean,
    SchemaTransformation.transform({
      decode: (value: 0 | 1 | boolean) => value === true || value === 1,
      encode: (value: boolean): 0 | 1 | boolean => (value ? 1 : 0)
    })
  )
)

/** The JSON document, stored as TEXT so that both engines round-trip it byte for byte. */
const Document = Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown))

/** A row of `catalog_records`. */
export const RecordRow = Schema.Struct({
  company_id: Ids.CompanyId,
  resource: Resource.ResourceName,
  id: Ids.RecordId,
  revision: Schema.Int,
  data: Document,
  // The record's own order of category ids; record_categories holds the same ids for filtering only.
  category_ids: Schema.fromJsonString(Schema.Array(Ids.RecordId)),
  // A bundle's own order of components; record_components holds the same ids for the reverse lookup.
  component_ids: Schema.fromJsonString(Schema.Array(Ids.RecordId)),
  active: Schema.NullOr(Flag),
  collection_id: Schema.NullOr(Ids.RecordId),
  brand_id: Schema.NullOr(Ids.RecordId),
  parent_id: Schema.NullOr(Ids.RecordId),
  created_at: Schema.String,
  updated_at: Schema.String,
  archived_at: Schema.NullOr(Schema.String)
})
export type RecordRow = typeof RecordRow.Type

/** Column list of RecordRow, qualified with the alias `r` used by every record query. */
export const recordColumns = Object.keys(RecordRow.fields)
  .map((column) => `r.${column}`)
  .join(", ")

/**
 * The `catalog_records` row of a record, as `RecordRow` encodes it (JSON text for the document and the id
 * lists, 0/1 for the flag), built directly: core's records are typed already, and encoding every write
 * through the schema cost more than its statement (docs/performance.md, "What each design choice buys").
 */
export const recordRowOf = (record: StoredRecord.StoredRecord): typeof RecordRow.Encoded => ({
  company_id: record.companyId,
  resource: record.resource,
  id: record.id,
  revision: record.revision,
  data: JSON.stringify(record.data),
  category_ids: JSON.stringify(record.index.categoryIds),
  component_ids: JSON.stringify(record.index.componentIds),
  active: record.index.active === null ? null : record.index.active ? 1 : 0,
  collection_id: record.index.collectionId,
  brand_id: record.index.brandId,
  parent_id: record.index.parentId,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
  archived_at: record.archivedAt
})

/** A JSON list of ids as stored; most records' lists are empty, which needs no parse. */
const idList = (text: string): ReadonlyArray<Ids.RecordId> =>
  text === "[]" ? [] : (JSON.parse(text) as ReadonlyArray<Ids.RecordId>)

/**
 * A `catalog_records` row as the driver returns it, mapped without a schema: the rows are our own writes
 * (encoded through `RecordRow` on the way in), and decoding them again cost more than reading them
 * (docs/performance.md, "What each design choice buys"). Gives what decoding the row through `RecordRow` gave.
 * The document is parsed when first read, and its text is kept with the record (`withDocumentText`): an
 * answer that shows the whole document splices the text instead (a list page need not parse it at all).
 */
export const storedRecordOf = (row: Readonly<Record<string, unknown>>): StoredRecord.StoredRecord => {
  const text = row.data as string
  let data: StoredRecord.StoredRecord["data"] | undefined
  return StoredRecord.withDocumentText(
    {
      id: row.id as Ids.RecordId,
      companyId: row.company_id as Ids.CompanyId,
      resource: row.resource as Resource.ResourceName,
      revision: Number(row.revision),
      get data() {
        return (data ??= JSON.parse(text) as StoredRecord.StoredRecord["data"])
      },
      index: {
        active: row.active === null ? null : row.active === true || row.active === 1,
        collectionId: row.collection_id as Ids.RecordId | null,
        brandId: row.brand_id as Ids.RecordId | null,
        parentId: row.parent_id as Ids.RecordId | null,
        categoryIds: idList(row.category_ids as string),
        componentIds: idList(row.component_ids as string)
      },
      createdAt: row.created_at as string,
      updatedAt: row.updated_at as string,
      archivedAt: row.archived_at as string | null
    },
    text
  )
}

/** What a mapping may point at: a catalog resource or a media item. */
export const ReferenceTarget = Schema.Union([Resource.ResourceName, Schema.Literal("media")])

/** A row of `mappings`. */
export const MappingRow = Schema.Struct({
  company_id: Ids.CompanyId,
  connection_id: Ids.ConnectionId,
  resource: ReferenceTarget,
  external_id: Schema.String,
  record_id: Ids.RecordId,
  created_at: Schema.String
})

/**
 * Splits an id list into chunks that stay below every engine's bound-parameter limit (SQLite 32766,
 * PostgreSQL 65535) with room for the other parameters; real requests fit in one chunk.
 */
export const chunks = <A>(items: ReadonlyArray<A>, size = 1000): ReadonlyArray<Arr.NonEmptyReadonlyArray<A>> => {
  const out: Array<Arr.NonEmptyReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) {
    const chunk = items.slice(i, i + size)
    if (Arr.isReadonlyArrayNonEmpty(chunk)) out.push(chunk)
  }
  return out
}

/**
 * A 64-bit integer as a number (exact up to 2^53): @effect/sql-pg reads PostgreSQL's `bigint`, and the
 * COUNT of any rows, as a JS `bigint`.
 */
export const NumberFromBigInt = Schema.BigInt.pipe(
  Schema.decodeTo(
    Schema.Number,
    SchemaTransformation.transform({
      decode: (value: bigint) => Number(value),
      encode: (value: number) => BigInt(value)
    })
  )
)

/**
 * Epoch milliseconds, and other 64-bit integers (counts, sizes). SQLite's INTEGER is 64-bit and node:sqlite
 * returns a number; PostgreSQL needs `bigint`, which @effect/sql-pg returns as a JS `bigint` (and a text
 * value, such as a `numeric` SUM, is parsed), so decoding accepts all three (exact up to 2^53).
 */
export const Millis = Schema.Union([
  Schema.Int,
  NumberFromBigInt.check(Schema.isInt()),
  Schema.NumberFromString.check(Schema.isInt())
])

/** A row of `companies`. JSON arrays are TEXT, as `data` is; `domains` keeps the company's own order. */
export const CompanyRow = Schema.Struct({
  id: Ids.CompanyId,
  name: Schema.String,
  currency: Company.CompanySettings.fields.currency,
  main_language: Company.CompanySettings.fields.main_language,
  languages: Schema.fromJsonString(Company.CompanySettings.fields.languages),
  tax_model: Company.TaxModel,
  tax_rates: Schema.fromJsonString(Company.CompanySettings.fields.tax_rates),
  storage_slug: Schema.String,
  enabled: Flag,
  subscription_active: Flag,
  stock_package: Flag,
  inventory_module: Flag,
  granted_scopes: Schema.fromJsonString(Schema.Array(Scope.Scope)),
  // The company's own list, read back exactly as written; company_domains holds the same domains (once
  // each) so that the database enforces that a domain belongs to one company and finds its owner.
  domains: Schema.fromJsonString(Schema.Array(Schema.String)),
  created_at: Schema.String
})
export type CompanyRow = typeof CompanyRow.Type

export const companyColumns = (alias: string) =>
  Object.keys(CompanyRow.fields)
    .map((column) => `${alias}.${column}`)
    .join(", ")

export const toCompanyRow = (company: Company.Company): CompanyRow => ({
  id: company.id,
  name: company.name,
  currency: company.currency,
  main_language: company.main_language,
  languages: company.languages,
  tax_model: company.tax_model,
  tax_rates: company.tax_rates,
  storage_slug: company.storage_slug,
  enabled: company.enabled,
  subscription_active: company.subscription_active,
  stock_package: company.stock_package,
  inventory_module: company.inventory_module,
  granted_scopes: company.granted_scopes,
  domains: company.domains,
  created_at: company.created_at
})

export const toCompany = (row: CompanyRow): Company.Company => ({
  id: row.id,
  name: row.name,
  currency: row.currency,
  main_language: row.main_language,
  languages: row.languages,
  tax_model: row.tax_model,
  tax_rates: row.tax_rates,
  storage_slug: row.storage_slug,
  enabled: row.enabled,
  subscription_active: row.subscription_active,
  stock_package: row.stock_package,
  inventory_module: row.inventory_module,
  granted_scopes: row.granted_scopes,
  domains: row.domains,
  created_at: row.created_at
})

/** A row of `connections`; the domain shape already is one row. */
export const ConnectionRow = Schema.Struct({
  id: Ids.ConnectionId,
  company_id: Ids.CompanyId,
  name: Schema.String,
  enabled: Flag,
  created_at: Schema.String
})

/** A row of `api_keys`: the key, its scopes as JSON text and the hash of its secret. */
export const ApiKeyRow = Schema.Struct({
  id: Schema.String,
  company_id: Ids.CompanyId,
  connection_id: Ids.ConnectionId,
  name: Schema.String,
  scopes: Schema.fromJsonString(ApiKey.ApiKey.fields.scopes),
  secret_hash: Schema.String,
  created_at: Schema.String,
  expires_at: Schema.String,
  revoked_at: Schema.NullOr(Schema.String)
})
export type ApiKeyRow = typeof ApiKeyRow.Type

export const toApiKeyRow = (key: ApiKey.ApiKey, secretHash: string): ApiKeyRow => ({
  id: key.id,
  company_id: key.company_id,
  connection_id: key.connection_id,
  name: key.name,
  scopes: key.scopes,
  secret_hash: secretHash,
  created_at: key.created_at,
  expires_at: key.expires_at,
  revoked_at: key.revoked_at
})

export const toApiKey = (row: ApiKeyRow): ApiKey.ApiKey => ({
  id: row.id,
  company_id: row.company_id,
  connection_id: row.connection_id,
  name: row.name,
  scopes: row.scopes,
  created_at: row.created_at,
  expires_at: row.expires_at,
  revoked_at: row.revoked_at
})

/** A row of `locations`; the domain shape already is one row. */
export const LocationRow = Schema.Struct({
  id: Ids.UUID,
  company_id: Ids.CompanyId,
  name: Schema.String,
  created_at: Schema.String
})

/** A row of `connection_locations`, `writable` as 0/1. */
export const AssignmentRow = Schema.Struct({
  connection_id: Ids.ConnectionId,
  location_id: Ids.UUID,
  writable: Flag
})

export const toAssignment = (row: typeof AssignmentRow.Type): Accounts.LocationAssignment => ({
  connection_id: row.connection_id,
  location_id: row.location_id,
  writable: row.writable
})

/** A row of `idempotency_keys`. `response` is the stored body as JSON text; `status` is its HTTP status. */
export const IdempotencyRow = Schema.Struct({
  company_id: Ids.CompanyId,
  connection_id: Ids.ConnectionId,
  key: Schema.String,
  fingerprint: Schema.String,
  state: Schema.Literals(["running", "completed"]),
  lease_until: Millis,
  created_at: Millis,
  status: Schema.NullOr(Schema.Int),
  response: Schema.NullOr(Schema.fromJsonString(Schema.Unknown))
})
export type IdempotencyRow = typeof IdempotencyRow.Type
