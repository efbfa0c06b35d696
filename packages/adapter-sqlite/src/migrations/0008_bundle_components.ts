import { SqlClient } from "effect/sql"
import { Effect } from "effect"
import { backfillComponents } from "@catalog-sync/adapter-sql"

/**
 * Which bundles contain a product: `component_ids` keeps a bundle's own order of components (as
 * `category_ids` does for categories), `record_components` the same ids keyed for the reverse lookup, so
 * that archiving a component or turning it into a bundle can be refused without reading every bundle.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE catalog_records ADD COLUMN component_ids TEXT NOT NULL DEFAULT '[]'`
  yield* sql`CREATE TABLE record_components (
    company_id TEXT NOT NULL,
    bundle_id TEXT NOT NULL,
    component_id TEXT NOT NULL,
    PRIMARY KEY (company_id, bundle_id, component_id)
  ) STRICT, WITHOUT ROWID`
  yield* sql`CREATE INDEX record_components_by_component ON record_components (company_id, component_id, bundle_id)`
  yield* backfillComponents
})
