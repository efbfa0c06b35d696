import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Finished jobs by kind and finish time, for the retention purge: it reads the oldest finished import
 * jobs first, through this index only, however long the queue and the history are.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX jobs_finished ON jobs (kind, finished_at) WHERE state IN ('completed', 'failed')`
})
