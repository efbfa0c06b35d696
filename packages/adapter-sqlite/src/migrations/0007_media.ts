import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/** Media items: one row per uploaded version; the external_id mapping lives in `mappings` (resource "media"). */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE media (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    external_id TEXT NOT NULL,
    name TEXT NOT NULL,
    purpose TEXT NOT NULL CHECK (purpose IN ('catalog', 'option')),
    state TEXT NOT NULL CHECK (state IN ('queued', 'completed', 'failed')),
    job_id TEXT NOT NULL,
    source_sha256 TEXT NOT NULL,
    source_bytes INTEGER NOT NULL,
    source_format TEXT NOT NULL,
    staged_key TEXT,
    content_key TEXT NOT NULL,
    width INTEGER,
    height INTEGER,
    bytes INTEGER,
    failure TEXT,
    revision INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX media_by_company ON media (company_id, id)`
  yield* sql`CREATE INDEX media_by_job ON media (job_id)`
  yield* sql`CREATE INDEX media_by_content ON media (company_id, content_key) WHERE state = 'completed'`
  yield* sql`CREATE INDEX media_staged ON media (company_id, connection_id) WHERE staged_key IS NOT NULL`
})
