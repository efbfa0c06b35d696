import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/** The W3C traceparent of the traced request that queued a job (null otherwise), for the job's trace to link to. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE jobs ADD COLUMN trace_parent TEXT`
})
