import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Durable background jobs and the records of import jobs with their per-record results. Leases and
 * queue times are epoch milliseconds in INTEGER; scopes, bodies and errors are JSON in TEXT, as
 * SCHEMA.md describes. No foreign keys to accounts: the scope comes from an authenticated principal.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // queue_seq orders the queue: taken as MAX + 1 at insert and requeue, as queued_at can tie.
  yield* sql`CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'completed', 'failed', 'paused')),
    scopes TEXT NOT NULL,
    run INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    queued_at INTEGER NOT NULL,
    queue_seq INTEGER NOT NULL,
    lease_owner TEXT,
    lease_until INTEGER,
    failure TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    updated_at TEXT NOT NULL,
    CHECK (state <> 'running' OR (lease_owner IS NOT NULL AND lease_until IS NOT NULL))
  ) STRICT`
  // A connection's pages in id order, and its pending count.
  yield* sql`CREATE INDEX jobs_by_connection ON jobs (company_id, connection_id, id)`
  // Claims scan pending jobs only, in queue order.
  yield* sql`CREATE INDEX jobs_pending ON jobs (queue_seq) WHERE state IN ('queued', 'running')`

  yield* sql`CREATE TABLE import_records (
    job_id TEXT NOT NULL REFERENCES jobs (id),
    idx INTEGER NOT NULL,
    resource TEXT NOT NULL,
    body TEXT NOT NULL,
    external_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'applied', 'failed')),
    outcome TEXT CHECK (outcome IN ('created', 'updated', 'unchanged')),
    record_id TEXT,
    error TEXT,
    run INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (job_id, idx)
  ) STRICT`
})
