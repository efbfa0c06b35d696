import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * The panel's people and the audit log: panel users (one per email, compared lower-cased), their sessions
 * (by the SHA-256 of the cookie's token), the failed sign-ins the throttle counts (epoch ms), and the
 * audit entries (details as a JSON object of strings).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE panel_users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'owner', 'manager')),
    company_id TEXT REFERENCES companies (id),
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    CHECK ((role = 'admin') = (company_id IS NULL))
  ) STRICT`
  yield* sql`CREATE UNIQUE INDEX panel_users_email ON panel_users (lower(email))`
  yield* sql`CREATE INDEX panel_users_by_company ON panel_users (company_id, created_at, id)`

  yield* sql`CREATE TABLE panel_sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES panel_users (id),
    csrf_token TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    address TEXT
  ) STRICT, WITHOUT ROWID`
  // Sign-out everywhere and disabling a user end all of a user's sessions.
  yield* sql`CREATE INDEX panel_sessions_by_user ON panel_sessions (user_id)`

  yield* sql`CREATE TABLE sign_in_failures (
    "key" TEXT NOT NULL,
    at INTEGER NOT NULL
  ) STRICT`
  // The throttle counts one key's failures since a time; old failures of every key are forgotten by time.
  yield* sql`CREATE INDEX sign_in_failures_by_key ON sign_in_failures ("key", at)`
  yield* sql`CREATE INDEX sign_in_failures_by_at ON sign_in_failures (at)`

  yield* sql`CREATE TABLE audit_log (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    actor_user_id TEXT,
    company_id TEXT,
    action TEXT NOT NULL,
    target TEXT,
    address TEXT,
    details TEXT NOT NULL
  ) STRICT`
  // A company's entries, newest first: `seq` is the order of appending, which ids made in one
  // millisecond do not keep.
  yield* sql`CREATE INDEX audit_log_by_company ON audit_log (company_id, seq)`
})
