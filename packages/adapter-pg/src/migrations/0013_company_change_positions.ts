import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Each company's changes numbered by the company's own sequence, so that feed cursors say nothing about
 * other companies' writes. The table is rebuilt (each row written once, where an UPDATE would leave a dead
 * version of every row behind): `company_position` numbers the existing changes of each company 1, 2, 3...
 * in their existing order, and the former global `position`, which cursors issued before carry, is kept as
 * `global_position` (null for changes written after this migration) with an index for reading those
 * cursors. `change_heads` holds each company's last position: an append moves it in the statement that
 * inserts the change, and holds its row until commit (what the advisory lock on the company did). The
 * former column name is gone, so an instance of an earlier version still running fails instead of
 * misreading the numbers.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE changes_next (
    company_id TEXT COLLATE "C" NOT NULL,
    company_position BIGINT NOT NULL,
    resource TEXT COLLATE "C" NOT NULL,
    record_id TEXT COLLATE "C" NOT NULL,
    revision INTEGER NOT NULL,
    operation TEXT NOT NULL CONSTRAINT changes_operation_check CHECK (operation IN ('created', 'updated', 'archived')),
    origin_connection_id TEXT COLLATE "C" NOT NULL,
    at TEXT COLLATE "C" NOT NULL,
    visibility INTEGER NOT NULL,
    global_position BIGINT,
    CONSTRAINT changes_next_pkey PRIMARY KEY (company_id, company_position)
  )`
  yield* sql`INSERT INTO changes_next (company_id, company_position, resource, record_id, revision, operation,
                                       origin_connection_id, at, visibility, global_position)
    SELECT company_id, ROW_NUMBER() OVER (PARTITION BY company_id ORDER BY position), resource, record_id, revision,
           operation, origin_connection_id, at, visibility, position
    FROM changes`
  yield* sql`DROP TABLE changes`
  yield* sql`ALTER TABLE changes_next RENAME TO changes`
  yield* sql`ALTER INDEX changes_next_pkey RENAME TO changes_pkey`
  yield* sql`CREATE INDEX changes_by_global_position ON changes (company_id, global_position) WHERE global_position IS NOT NULL`
  yield* sql`CREATE TABLE change_heads (
    company_id TEXT COLLATE "C" PRIMARY KEY,
    last_position BIGINT NOT NULL
  )`
  yield* sql`INSERT INTO change_heads (company_id, last_position)
    SELECT company_id, MAX(company_position) FROM changes GROUP BY company_id`
})
