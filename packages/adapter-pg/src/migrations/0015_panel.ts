import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * The panel's people and the audit log, as SQLite's 0015_panel creates them: panel users (one per email,
 * compared lower-cased), their sessions (by the SHA-256 of the cookie's token), the failed sign-ins the
 * throttle counts (epoch ms, BIGINT), and the audit entries (details as a JSON object of strings, TEXT).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE panel_users (
    id TEXT COLLATE "C" PRIMARY KEY,
    email TEXT NOT NULL,
    name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'owner', 'manager')),
    company_id TEXT COLLATE "C" REFERENCES companies (id),
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    password_hash TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    CHECK ((role = 'admin') = (company_id IS NULL))
  )`
  yield* sql`CREATE UNIQUE INDEX panel_users_email ON panel_users (lower(email))`
  yield* sql`CREATE INDEX panel_users_by_company ON panel_users (company_id, created_at, id)`

  yield* sql`CREATE TABLE panel_sessions (
    id TEXT COLLATE "C" PRIMARY KEY,
    user_id TEXT COLLATE "C" NOT NULL REFERENCES panel_users (id),
    csrf_token TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    last_seen_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL,
    address TEXT
  )`
  yield* sql`CREATE INDEX panel_sessions_by_user ON panel_sessions (user_id)`

  yield* sql`CREATE TABLE sign_in_failures (
    "key" TEXT COLLATE "C" NOT NULL,
    at BIGINT NOT NULL
  )`
  yield* sql`CREATE INDEX sign_in_failures_by_key ON sign_in_failures ("key", at)`
  yield* sql`CREATE INDEX sign_in_failures_by_at ON sign_in_failures (at)`

  yield* sql`CREATE TABLE audit_log (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    at TEXT COLLATE "C" NOT NULL,
    actor TEXT NOT NULL,
    actor_user_id TEXT COLLATE "C",
    company_id TEXT COLLATE "C",
    action TEXT NOT NULL,
    target TEXT,
    address TEXT,
    details TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX audit_log_by_company ON audit_log (company_id, seq)`
})
