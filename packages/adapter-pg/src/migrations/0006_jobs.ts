import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Durable background jobs and the records of import jobs with their per-record results, as SQLite's
 * This migration creates them. Leases, queue times and the queue sequence are epoch milliseconds or counters in
 * BIGINT (@effect/sql-pg returns a JS bigint, which the row schemas accept); scopes, bodies and errors are JSON
 * in TEXT. No foreign keys to accounts: the scope comes from an authenticated principal.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE jobs (
    id TEXT COLLATE "C" PRIMARY KEY,
    company_id TEXT COLLATE "C" NOT NULL,
    connection_id TEXT COLLATE "C" NOT NULL,
    key_id TEXT COLLATE "C" NOT NULL,
    kind TEXT COLLATE "C" NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'completed', 'failed', 'paused')),
    scopes TEXT NOT NULL,
    run INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    queued_at BIGINT NOT NULL,
    queue_seq BIGINT NOT NULL,
    lease_owner TEXT COLLATE "C",
    lease_until BIGINT,
    failure TEXT,
    created_at TEXT COLLATE "C" NOT NULL,
    started_at TEXT COLLATE "C",
    finished_at TEXT COLLATE "C",
    updated_at TEXT COLLATE "C" NOT NULL,
    CHECK (state <> 'running' OR (lease_owner IS NOT NULL AND lease_until IS NOT NULL))
  )`
  yield* sql`CREATE INDEX jobs_by_connection ON jobs (company_id, connection_id, id)`
  yield* sql`CREATE INDEX jobs_pending ON jobs (queue_seq) WHERE state IN ('queued', 'running')`

  yield* sql`CREATE TABLE import_records (
    job_id TEXT COLLATE "C" NOT NULL REFERENCES jobs (id),
    idx INTEGER NOT NULL,
    resource TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    external_id TEXT COLLATE "C",
    status TEXT NOT NULL CHECK (status IN ('pending', 'applied', 'failed')),
    outcome TEXT CHECK (outcome IN ('created', 'updated', 'unchanged')),
    record_id TEXT COLLATE "C",
    error TEXT,
    run INTEGER NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (job_id, idx)
  )`
})
