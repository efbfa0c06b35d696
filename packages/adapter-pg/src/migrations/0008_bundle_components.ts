import { SqlClient } from "effect/sql"
import { Effect } from "effect"
import { backfillComponents } from "@catalog-sync/adapter-sql"

/** As SQLite's 0008: a bundle's component ids, and the reverse lookup from a component to its bundles. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE catalog_records ADD COLUMN component_ids TEXT NOT NULL DEFAULT '[]'`
  yield* sql`CREATE TABLE record_components (
    company_id TEXT COLLATE "C" NOT NULL,
    bundle_id TEXT COLLATE "C" NOT NULL,
    component_id TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (company_id, bundle_id, component_id)
  )`
  yield* sql`CREATE INDEX record_components_by_component ON record_components (company_id, component_id, bundle_id)`
  yield* backfillComponents
})
