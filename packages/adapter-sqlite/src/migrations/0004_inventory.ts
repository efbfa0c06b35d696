import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Stock cards, their per-location balances and the recorded stock events. Quantities are decimal strings
 * in TEXT: the arithmetic happens in TypeScript on strings, never in SQL or JS numbers. No foreign key to
 * locations or catalog records: the use case checks them, and the tables stay portable as catalog_records.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // One card per company, source kind and source record: the unique key is what ensureItem races on.
  yield* sql`CREATE TABLE stock_items (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL,
    source_kind TEXT NOT NULL CHECK (source_kind IN ('product', 'option')),
    source_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (company_id, source_kind, source_id)
  ) STRICT`
  // Cursor pages of a company's cards: `company_id = ? AND id > ? ORDER BY id` is one range.
  yield* sql`CREATE INDEX stock_items_by_company ON stock_items (company_id, id)`

  yield* sql`CREATE TABLE stock_balances (
    company_id TEXT NOT NULL,
    item_id TEXT NOT NULL REFERENCES stock_items (id),
    location_id TEXT NOT NULL,
    physical TEXT NOT NULL,
    reserved TEXT NOT NULL,
    incoming TEXT NOT NULL,
    revision INTEGER NOT NULL CHECK (revision >= 1),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (company_id, item_id, location_id)
  ) STRICT, WITHOUT ROWID`
  // The location filter of the list.
  yield* sql`CREATE INDEX stock_balances_by_location ON stock_balances (company_id, location_id, item_id)`

  // A rowid table: the stored result is a whole card and can be large.
  yield* sql`CREATE TABLE stock_events (
    company_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    item_id TEXT NOT NULL,
    location_id TEXT NOT NULL,
    result TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (company_id, event_id)
  ) STRICT`
})
