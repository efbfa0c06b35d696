import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * The catalog tables. STRICT makes SQLite enforce the declared column types, WITHOUT ROWID clusters the
 * small link tables by their key; neither has a PostgreSQL counterpart to port.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE catalog_records (
    company_id TEXT NOT NULL,
    resource TEXT NOT NULL,
    id TEXT NOT NULL,
    revision INTEGER NOT NULL CHECK (revision >= 1),
    data TEXT NOT NULL,
    category_ids TEXT NOT NULL DEFAULT '[]',
    active INTEGER CHECK (active IN (0, 1)),
    collection_id TEXT,
    brand_id TEXT,
    parent_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    archived_at TEXT,
    PRIMARY KEY (company_id, resource, id)
  ) STRICT`
  // Unfiltered pages of live records: the equality prefix plus `id > cursor` is one range, already in id
  // order, and archived rows are not in the index at all. Pages that include archived records use the
  // primary key.
  yield* sql`CREATE INDEX catalog_records_live ON catalog_records (company_id, resource, id) WHERE archived_at IS NULL`
  // One index per list filter, with id last so that `filter = ? AND id > ? ORDER BY id` is a range scan.
  // They keep archived rows so that includeArchived pages use them too; the archived check is applied on
  // the row, which the query reads anyway. Partial on NOT NULL: `col = ?` implies it, and most records
  // have no collection, brand or parent.
  yield* sql`CREATE INDEX catalog_records_collection ON catalog_records (company_id, resource, collection_id, id) WHERE collection_id IS NOT NULL`
  yield* sql`CREATE INDEX catalog_records_brand ON catalog_records (company_id, resource, brand_id, id) WHERE brand_id IS NOT NULL`
  yield* sql`CREATE INDEX catalog_records_active ON catalog_records (company_id, resource, active, id)`
  // Children of a category (subtree rules, "list children" reads).
  yield* sql`CREATE INDEX catalog_records_parent ON catalog_records (company_id, resource, parent_id, id) WHERE parent_id IS NOT NULL`

  yield* sql`CREATE TABLE record_categories (
    company_id TEXT NOT NULL,
    product_id TEXT NOT NULL,
    category_id TEXT NOT NULL,
    PRIMARY KEY (company_id, product_id, category_id)
  ) STRICT, WITHOUT ROWID`
  yield* sql`CREATE INDEX record_categories_by_category ON record_categories (company_id, category_id, product_id)`

  // No foreign key to catalog_records: a mapping may point at media, which lives elsewhere.
  yield* sql`CREATE TABLE mappings (
    company_id TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    resource TEXT NOT NULL,
    external_id TEXT NOT NULL,
    record_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (company_id, connection_id, resource, external_id),
    UNIQUE (company_id, connection_id, resource, record_id)
  ) STRICT, WITHOUT ROWID`

  // AUTOINCREMENT: a position is never reused, even after the newest row is deleted, so a feed cursor
  // can never point at a different change later.
  yield* sql`CREATE TABLE changes (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id TEXT NOT NULL,
    resource TEXT NOT NULL,
    record_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    operation TEXT NOT NULL CHECK (operation IN ('created', 'updated', 'archived')),
    origin_connection_id TEXT NOT NULL,
    at TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX changes_by_company ON changes (company_id, position)`
})
