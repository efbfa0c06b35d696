import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Each company's changes numbered by the company's own sequence, so that feed cursors say nothing about
 * other companies' writes. The table is rebuilt: `company_position` numbers the existing changes of each
 * company 1, 2, 3... in their existing order, and the former global `position`, which cursors issued
 * before carry, is kept as `global_position` (null for changes written after this migration) with an
 * index for reading those cursors. The rows are kept in their primary key's order (WITHOUT ROWID), so a
 * feed page reads consecutive rows and an append writes one b-tree. The former column name is gone, so a
 * server of an earlier version still running on this file fails instead of misreading the numbers.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE changes_next (
    company_id TEXT NOT NULL,
    company_position INTEGER NOT NULL,
    resource TEXT NOT NULL,
    record_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    operation TEXT NOT NULL CHECK (operation IN ('created', 'updated', 'archived')),
    origin_connection_id TEXT NOT NULL,
    at TEXT NOT NULL,
    visibility INTEGER NOT NULL,
    global_position INTEGER,
    PRIMARY KEY (company_id, company_position)
  ) STRICT, WITHOUT ROWID`
  yield* sql`INSERT INTO changes_next (company_id, company_position, resource, record_id, revision, operation,
                                       origin_connection_id, at, visibility, global_position)
    SELECT company_id, ROW_NUMBER() OVER (PARTITION BY company_id ORDER BY position), resource, record_id, revision,
           operation, origin_connection_id, at, visibility, position
    FROM changes ORDER BY company_id, position`
  yield* sql`DROP TABLE changes`
  yield* sql`ALTER TABLE changes_next RENAME TO changes`
  yield* sql`CREATE INDEX changes_by_global_position ON changes (company_id, global_position) WHERE global_position IS NOT NULL`
})
