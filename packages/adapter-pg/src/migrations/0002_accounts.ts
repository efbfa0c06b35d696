import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Account data, idempotency records and the shared rate-limit windows, as SQLite's 0002_accounts creates
 * them. JSON arrays are TEXT and flags 0/1 INTEGER, so that both drivers hand back the same values; epoch
 * milliseconds need BIGINT here (@effect/sql-pg returns it as a JS bigint, which the row schemas accept).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE companies (
    id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT NOT NULL,
    currency TEXT NOT NULL,
    main_language TEXT NOT NULL,
    languages TEXT NOT NULL,
    tax_model TEXT NOT NULL,
    tax_rates TEXT NOT NULL,
    storage_slug TEXT COLLATE "C" NOT NULL UNIQUE,
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    subscription_active INTEGER NOT NULL CHECK (subscription_active IN (0, 1)),
    stock_package INTEGER NOT NULL CHECK (stock_package IN (0, 1)),
    inventory_module INTEGER NOT NULL CHECK (inventory_module IN (0, 1)),
    granted_scopes TEXT NOT NULL,
    domains TEXT NOT NULL DEFAULT '[]',
    created_at TEXT COLLATE "C" NOT NULL
  )`

  yield* sql`CREATE TABLE company_domains (
    domain TEXT COLLATE "C" PRIMARY KEY,
    company_id TEXT COLLATE "C" NOT NULL REFERENCES companies (id)
  )`
  yield* sql`CREATE INDEX company_domains_by_company ON company_domains (company_id)`

  yield* sql`CREATE TABLE connections (
    id TEXT COLLATE "C" PRIMARY KEY,
    company_id TEXT COLLATE "C" NOT NULL REFERENCES companies (id),
    name TEXT NOT NULL,
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    created_at TEXT COLLATE "C" NOT NULL
  )`
  yield* sql`CREATE INDEX connections_by_company ON connections (company_id, created_at, id)`

  yield* sql`CREATE TABLE api_keys (
    id TEXT COLLATE "C" PRIMARY KEY,
    company_id TEXT COLLATE "C" NOT NULL REFERENCES companies (id),
    connection_id TEXT COLLATE "C" NOT NULL REFERENCES connections (id),
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL,
    revoked_at TEXT COLLATE "C"
  )`
  yield* sql`CREATE INDEX api_keys_by_company ON api_keys (company_id, created_at, id)`

  yield* sql`CREATE TABLE locations (
    id TEXT COLLATE "C" PRIMARY KEY,
    company_id TEXT COLLATE "C" NOT NULL REFERENCES companies (id),
    name TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL
  )`
  yield* sql`CREATE INDEX locations_by_company ON locations (company_id, created_at, id)`

  yield* sql`CREATE TABLE connection_locations (
    connection_id TEXT COLLATE "C" NOT NULL REFERENCES connections (id),
    location_id TEXT COLLATE "C" NOT NULL REFERENCES locations (id),
    writable INTEGER NOT NULL CHECK (writable IN (0, 1)),
    PRIMARY KEY (connection_id, location_id)
  )`

  // No foreign keys: the scope comes from an authenticated principal.
  yield* sql`CREATE TABLE idempotency_keys (
    company_id TEXT COLLATE "C" NOT NULL,
    connection_id TEXT COLLATE "C" NOT NULL,
    "key" TEXT COLLATE "C" NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('running', 'completed')),
    lease_until BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    status INTEGER,
    response TEXT,
    PRIMARY KEY (company_id, connection_id, "key"),
    CHECK (state = 'running' OR status IS NOT NULL)
  )`
  yield* sql`CREATE INDEX idempotency_keys_completed ON idempotency_keys (created_at) WHERE state = 'completed'`

  yield* sql`CREATE TABLE rate_windows (
    bucket TEXT COLLATE "C" NOT NULL,
    window_start BIGINT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
  )`
  yield* sql`CREATE INDEX rate_windows_by_start ON rate_windows (window_start)`
})
