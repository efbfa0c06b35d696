import { SqlClient } from "effect/sql"
import { Array as Arr, Effect } from "effect"

/**
 * Data steps of migrations that both engines share. A migration runs once per database, so a change here
 * only reaches databases migrated later: change behaviour with a new migration, not by editing one.
 */

/** Fills `component_ids` and `record_components` from the documents of the bundles written before them. */
export const backfillComponents = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ company_id: string; id: string; data: string }>`
    SELECT company_id, id, data FROM catalog_records WHERE resource = 'products'`
  for (const row of rows) {
    const components = (JSON.parse(row.data) as { components?: ReadonlyArray<{ product_id: string }> }).components ?? []
    const ids = components.map((c) => c.product_id)
    if (!Arr.isReadonlyArrayNonEmpty(ids)) continue
    yield* sql`UPDATE catalog_records SET component_ids = ${JSON.stringify(ids)}
               WHERE company_id = ${row.company_id} AND resource = 'products' AND id = ${row.id}`
    yield* sql`INSERT INTO record_components ${sql.insert(
      Arr.map(Arr.dedupe(ids), (componentId) => ({
        company_id: row.company_id,
        bundle_id: row.id,
        component_id: componentId
      }))
    )}`
  }
})
