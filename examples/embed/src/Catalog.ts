/**
 * The embedding application's own use of the core. It names the services it uses and the caller it acts
 * for, never a database: the same program runs in memory, on SQLite or on PostgreSQL.
 */
import { CatalogService, Decode, type Resource } from "@catalog-sync/core"
import { Effect } from "effect"

/** Decodes a body as the HTTP API does (strict: unknown keys fail), then upserts it. */
export const upsert = (resource: Resource.ResourceName, input: unknown) =>
  Effect.flatMap(Effect.fromResult(Decode.decodeUpsert(resource, input)), (body) =>
    Effect.flatMap(CatalogService.CatalogService, (catalog) => catalog.upsert(resource, body))
  )

/** A category and a product in it, an update with the revision read, a stale update, and the product list. */
export const syncSofas = Effect.gen(function* () {
  const catalog = yield* CatalogService.CatalogService
  const category = yield* upsert("categories", { external_id: "sofas", name: "Sofas" })
  const created = yield* upsert("products", {
    external_id: "sofa-1",
    name: "Sofa",
    category_ids: [{ external_id: "sofas" }]
  })
  const updated = yield* upsert("products", {
    external_id: "sofa-1",
    expected_revision: created.record.revision,
    name: "Sofa XL"
  })
  // Domain failures are tagged errors with the API's error code.
  const stale = yield* Effect.flip(
    upsert("products", { external_id: "sofa-1", expected_revision: created.record.revision, name: "Too late" })
  )
  const page = yield* catalog.list("products", { limit: 50 })
  return {
    outcomes: [category.outcome, created.outcome, updated.outcome],
    conflict: stale.code,
    products: page.records.map((record) => `${record.external_id}: ${record.name} (revision ${record.revision})`)
  }
})
