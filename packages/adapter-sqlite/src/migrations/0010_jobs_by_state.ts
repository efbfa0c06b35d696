import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/** Operators list jobs by state across companies (paused media jobs, the queue): by state, in id order. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX jobs_by_state ON jobs (state, id)`
})
