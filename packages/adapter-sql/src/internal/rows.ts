import { Ids, Resource, type StoredRecord } from "@catalog-sync/core"
import { Schema } from "effect"

/**
 * A nullable boolean column. SQLite has no boolean type (and better-sqlite3 refuses to bind JS booleans),
 * so the logical schema stores 0/1 INTEGER on every engine; decoding also accepts a real boolean in case
 * a driver or a hand-written migration uses one.
 */
const Flag = Schema.transform(Schema.Union(Schema.Literal(0, 1), Schema.Boolean), Schema.Boolean, {
  strict: true,
  decode: (value) => value === true || value === 1,
  encode: (value) => (value ? 1 : 0) as 0 | 1
})

/** The JSON document, stored as TEXT so that both engines round-trip it byte for byte. */
const Document = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** A row of `catalog_records`. */
export const RecordRow = Schema.Struct({
  company_id: Ids.CompanyId,
  resource: Resource.ResourceName,
  id: Ids.RecordId,
  revision: Schema.Int,
  data: Document,
  // The record's own order of category ids; record_categories holds the same ids for filtering only.
  category_ids: Schema.parseJson(Schema.Array(Ids.RecordId)),
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

export const toRecordRow = (record: StoredRecord.StoredRecord): RecordRow => ({
  company_id: record.companyId,
  resource: record.resource,
  id: record.id,
  revision: record.revision,
  data: record.data,
  category_ids: record.index.categoryIds,
  active: record.index.active,
  collection_id: record.index.collectionId,
  brand_id: record.index.brandId,
  parent_id: record.index.parentId,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
  archived_at: record.archivedAt
})

export const toStoredRecord = (row: RecordRow): StoredRecord.StoredRecord => ({
  id: row.id,
  companyId: row.company_id,
  resource: row.resource,
  revision: row.revision,
  data: row.data,
  index: {
    active: row.active,
    collectionId: row.collection_id,
    brandId: row.brand_id,
    parentId: row.parent_id,
    categoryIds: row.category_ids
  },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  archivedAt: row.archived_at
})

/** What a mapping may point at: a catalog resource or a media item. */
export const ReferenceTarget = Schema.Union(Resource.ResourceName, Schema.Literal("media"))

/** A row of `mappings`. */
export const MappingRow = Schema.Struct({
  company_id: Ids.CompanyId,
  connection_id: Ids.ConnectionId,
  resource: ReferenceTarget,
  external_id: Schema.String,
  record_id: Ids.RecordId,
  created_at: Schema.String
})

/** A row of `changes`, without the position the database assigns. */
export const ChangeRow = Schema.Struct({
  company_id: Ids.CompanyId,
  resource: Schema.String,
  record_id: Ids.RecordId,
  revision: Schema.Int,
  operation: Schema.Literal("created", "updated", "archived"),
  origin_connection_id: Ids.ConnectionId,
  at: Schema.String
})

/**
 * Splits an id list into chunks that stay below every engine's bound-parameter limit (SQLite 32766,
 * PostgreSQL 65535) with room for the other parameters; real requests fit in one chunk.
 */
export const chunks = <A>(items: ReadonlyArray<A>, size = 1000): ReadonlyArray<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}
