import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * The change feed filters by what a key may read inside the query: `visibility` is the bit mask of the
 * parts a change touched (catalog 1, prices 2, costs 4, stock 8, media 16), as SQLite's 0005_change_feed.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE changes ADD COLUMN visibility INTEGER NOT NULL DEFAULT 1`
})
