import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Stock cards, their per-location balances and the recorded stock events, as SQLite's 0004_inventory
 * creates them. Quantities are decimal strings in TEXT: the arithmetic happens in TypeScript, never in SQL.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // One card per company, source kind and source record: the unique key is what ensureItem races on.
  yield* sql`CREATE TABLE stock_items (
    id TEXT COLLATE "C" PRIMARY KEY,
    company_id TEXT COLLATE "C" NOT NULL,
    source_kind TEXT COLLATE "C" NOT NULL CHECK (source_kind IN ('product', 'option')),
    source_id TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    UNIQUE (company_id, source_kind, source_id)
  )`
  yield* sql`CREATE INDEX stock_items_by_company ON stock_items (company_id, id)`

  yield* sql`CREATE TABLE stock_balances (
    company_id TEXT COLLATE "C" NOT NULL,
    item_id TEXT COLLATE "C" NOT NULL REFERENCES stock_items (id),
    location_id TEXT COLLATE "C" NOT NULL,
    physical TEXT NOT NULL,
    reserved TEXT NOT NULL,
    incoming TEXT NOT NULL,
    revision INTEGER NOT NULL CHECK (revision >= 1),
    updated_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (company_id, item_id, location_id)
  )`
  yield* sql`CREATE INDEX stock_balances_by_location ON stock_balances (company_id, location_id, item_id)`

  yield* sql`CREATE TABLE stock_events (
    company_id TEXT COLLATE "C" NOT NULL,
    event_id TEXT COLLATE "C" NOT NULL,
    connection_id TEXT COLLATE "C" NOT NULL,
    fingerprint TEXT NOT NULL,
    item_id TEXT COLLATE "C" NOT NULL,
    location_id TEXT COLLATE "C" NOT NULL,
    result TEXT NOT NULL,
    at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (company_id, event_id)
  )`
})
