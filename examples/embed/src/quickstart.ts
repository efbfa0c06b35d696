import { CatalogService, Decode, Ids, Principal } from "@catalog-sync/core"
import { InMemory } from "@catalog-sync/core/memory"
import { Effect, Layer } from "effect"

// The caller: your application authenticates its users, then says which company and connection they act for.
const caller = Principal.make({
  company: {
    id: Ids.CompanyId.make("0190a5a4-7b4e-7cc2-8d7e-2b1c8f3a9d01"),
    currency: "EUR",
    main_language: "en",
    languages: ["en", "de"],
    tax_model: "inclusive",
    tax_rates: ["20.00"],
    storage_slug: "acme"
  },
  connectionId: "0190a5a4-7b4e-7cc2-8d7e-2b1c8f3a9d02",
  scopes: ["catalog:read", "catalog:write"]
})

const program = Effect.gen(function* () {
  const catalog = yield* CatalogService.CatalogService
  // Decode a body as the HTTP API does: unknown keys, lengths and patterns fail with ValidationFailed.
  const body = yield* Effect.fromResult(Decode.decodeUpsert("categories", { external_id: "sofas", name: "Sofas" }))
  const { outcome, record } = yield* catalog.upsert("categories", body)
  console.log(`${outcome} category ${record.external_id} (revision ${record.revision})`)
})

// The use cases over the persistence ports (here in memory; adapter-sqlite's `layer` keeps them in a file) and ids.
const CatalogLive = CatalogService.CatalogService.Default.pipe(
  Layer.provide(InMemory.layer),
  Layer.provide(Ids.IdsLive)
)

await Effect.runPromise(
  program.pipe(Effect.provide(CatalogLive), Effect.provideService(Principal.CurrentPrincipal, caller))
)
