import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * The catalog tables, as SQLite's 0001_catalog creates them (see adapter-sql's SCHEMA.md). Ids and other
 * key text are `COLLATE "C"`, so that `ORDER BY id` and `id > cursor` follow byte order as on SQLite and in
 * the in-memory reference whatever the database's default collation, and btree range scans stay plain.
 * Documents stay JSON in TEXT: the adapter parses them itself, and `jsonb` would reorder keys.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE catalog_records (
    company_id TEXT COLLATE "C" NOT NULL,
    resource TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    revision INTEGER NOT NULL CHECK (revision >= 1),
    data TEXT NOT NULL,
    category_ids TEXT NOT NULL DEFAULT '[]',
    active INTEGER CHECK (active IN (0, 1)),
    collection_id TEXT COLLATE "C",
    brand_id TEXT COLLATE "C",
    parent_id TEXT COLLATE "C",
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL,
    archived_at TEXT COLLATE "C",
    PRIMARY KEY (company_id, resource, id)
  )`
  // The same indexes as on SQLite: each delivers a filtered list already in id order (see SCHEMA.md).
  yield* sql`CREATE INDEX catalog_records_live ON catalog_records (company_id, resource, id) WHERE archived_at IS NULL`
  yield* sql`CREATE INDEX catalog_records_collection ON catalog_records (company_id, resource, collection_id, id) WHERE collection_id IS NOT NULL`
  yield* sql`CREATE INDEX catalog_records_brand ON catalog_records (company_id, resource, brand_id, id) WHERE brand_id IS NOT NULL`
  yield* sql`CREATE INDEX catalog_records_active ON catalog_records (company_id, resource, active, id)`
  yield* sql`CREATE INDEX catalog_records_parent ON catalog_records (company_id, resource, parent_id, id) WHERE parent_id IS NOT NULL`

  yield* sql`CREATE TABLE record_categories (
    company_id TEXT COLLATE "C" NOT NULL,
    product_id TEXT COLLATE "C" NOT NULL,
    category_id TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (company_id, product_id, category_id)
  )`
  yield* sql`CREATE INDEX record_categories_by_category ON record_categories (company_id, category_id, product_id)`

  // No foreign key to catalog_records: a mapping may point at media, which lives elsewhere.
  yield* sql`CREATE TABLE mappings (
    company_id TEXT COLLATE "C" NOT NULL,
    connection_id TEXT COLLATE "C" NOT NULL,
    resource TEXT COLLATE "C" NOT NULL,
    external_id TEXT COLLATE "C" NOT NULL,
    record_id TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (company_id, connection_id, resource, external_id),
    UNIQUE (company_id, connection_id, resource, record_id)
  )`

  // An identity never hands out a value twice, as SQLite's AUTOINCREMENT. @effect/sql-pg returns bigint as
  // a JS bigint, which the change log decodes. Commit order is ChangeLog.append's concern (an advisory lock).
  yield* sql`CREATE TABLE changes (
    position BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    company_id TEXT COLLATE "C" NOT NULL,
    resource TEXT COLLATE "C" NOT NULL,
    record_id TEXT COLLATE "C" NOT NULL,
    revision INTEGER NOT NULL,
    operation TEXT NOT NULL CHECK (operation IN ('created', 'updated', 'archived')),
    origin_connection_id TEXT COLLATE "C" NOT NULL,
    at TEXT COLLATE "C" NOT NULL
  )`
  yield* sql`CREATE INDEX changes_by_company ON changes (company_id, position)`
})
