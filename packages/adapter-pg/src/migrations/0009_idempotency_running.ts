import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/** Running claims by lease end, so that the purge finds claims left by requests that died without a scan. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX idempotency_keys_running ON idempotency_keys (lease_until) WHERE state = 'running'`
})
