import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Indexes that keep a claim and a submission independent of the job history: a connection's pending jobs
 * (the claim's "none of this connection running" check and the pending count read them, not every job the
 * connection ever had), a company's unfinished media jobs (the media queue's order), and the queue order of
 * every job (a new job's MAX(queue_seq) + 1 reads the last entry instead of the table).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX jobs_pending_by_connection ON jobs (company_id, connection_id) WHERE state IN ('queued', 'running')`
  yield* sql`CREATE INDEX jobs_media_unfinished ON jobs (company_id, queue_seq) WHERE kind = 'media' AND state IN ('queued', 'running', 'paused')`
  yield* sql`CREATE INDEX jobs_queue_order ON jobs (queue_seq)`
})
