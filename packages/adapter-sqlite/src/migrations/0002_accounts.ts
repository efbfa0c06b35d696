import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Account data (companies, their domains, connections, API keys, locations and their assignments), the
 * idempotency records and the shared rate-limit windows. JSON arrays are TEXT, flags 0/1 INTEGER and
 * epoch milliseconds INTEGER (64-bit in SQLite; `bigint` on PostgreSQL), as SCHEMA.md describes.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // `domains` keeps the company's own list; company_domains is what makes a domain belong to one company.
  yield* sql`CREATE TABLE companies (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    currency TEXT NOT NULL,
    main_language TEXT NOT NULL,
    languages TEXT NOT NULL,
    tax_model TEXT NOT NULL,
    tax_rates TEXT NOT NULL,
    storage_slug TEXT NOT NULL UNIQUE,
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    subscription_active INTEGER NOT NULL CHECK (subscription_active IN (0, 1)),
    stock_package INTEGER NOT NULL CHECK (stock_package IN (0, 1)),
    inventory_module INTEGER NOT NULL CHECK (inventory_module IN (0, 1)),
    granted_scopes TEXT NOT NULL,
    domains TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
  ) STRICT`

  yield* sql`CREATE TABLE company_domains (
    domain TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies (id)
  ) STRICT, WITHOUT ROWID`
  // saveCompany deletes a company's domains before writing them again.
  yield* sql`CREATE INDEX company_domains_by_company ON company_domains (company_id)`

  yield* sql`CREATE TABLE connections (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies (id),
    name TEXT NOT NULL,
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    created_at TEXT NOT NULL
  ) STRICT`
  // The company's lists are ordered by creation; the index returns them in that order.
  yield* sql`CREATE INDEX connections_by_company ON connections (company_id, created_at, id)`

  yield* sql`CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies (id),
    connection_id TEXT NOT NULL REFERENCES connections (id),
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT
  ) STRICT`
  yield* sql`CREATE INDEX api_keys_by_company ON api_keys (company_id, created_at, id)`

  yield* sql`CREATE TABLE locations (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies (id),
    name TEXT NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX locations_by_company ON locations (company_id, created_at, id)`

  yield* sql`CREATE TABLE connection_locations (
    connection_id TEXT NOT NULL REFERENCES connections (id),
    location_id TEXT NOT NULL REFERENCES locations (id),
    writable INTEGER NOT NULL CHECK (writable IN (0, 1)),
    PRIMARY KEY (connection_id, location_id)
  ) STRICT, WITHOUT ROWID`

  // A rowid table although the key is composite: a stored response can be large, and WITHOUT ROWID suits
  // small rows only. No foreign key: the scope comes from an authenticated principal.
  yield* sql`CREATE TABLE idempotency_keys (
    company_id TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    "key" TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('running', 'completed')),
    lease_until INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    status INTEGER,
    response TEXT,
    PRIMARY KEY (company_id, connection_id, "key"),
    CHECK (state = 'running' OR status IS NOT NULL)
  ) STRICT`
  // purge reads completed records by age.
  yield* sql`CREATE INDEX idempotency_keys_completed ON idempotency_keys (created_at) WHERE state = 'completed'`

  yield* sql`CREATE TABLE rate_windows (
    bucket TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
  ) STRICT, WITHOUT ROWID`
  // The occasional cleanup deletes ended windows of every bucket.
  yield* sql`CREATE INDEX rate_windows_by_start ON rate_windows (window_start)`
})
