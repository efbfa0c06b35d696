import { CatalogService, type Company, Ids, Principal } from "@catalog-sync/core"
import { describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { expect } from "vitest"
import { layer as pgLayer, unavailableReason } from "../src/testing.js"

const skip = unavailableReason()
const uuid = () => globalThis.crypto.randomUUID()

const principal = (): Principal.Principal => {
  const company: Company.CompanySettings = {
    id: uuid() as never,
    currency: "EUR",
    main_language: "en",
    languages: ["en"],
    tax_model: "none",
    tax_rates: [],
    storage_slug: "cats"
  }
  return { company, connectionId: uuid() as never, keyId: "k", scopes: new Set(["catalog:read", "catalog:write"]), features: { stock: false } }
}

const Live = CatalogService.CatalogService.Default.pipe(Layer.provideMerge(Ids.IdsLive), Layer.provideMerge(pgLayer({ poolSize: 12 })))

describe.skipIf(skip !== undefined)("category cycles on PostgreSQL", () => {
  layer(Live, { timeout: 120_000 })("concurrent parent changes", (it) => {
    it.effect("A under B and B under A at the same time: one wins, the other is a cycle", () =>
      Effect.gen(function* () {
        const catalog = yield* CatalogService.CatalogService
        for (let pair = 0; pair < 12; pair++) {
          const who = principal()
          const as = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Principal.CurrentPrincipal, who)
          yield* as(catalog.upsert("categories", { external_id: "a", name: "A" }))
          yield* as(catalog.upsert("categories", { external_id: "b", name: "B" }))
          const results = yield* Effect.all(
            [
              as(catalog.upsert("categories", { external_id: "a", expected_revision: 1, parent_id: { external_id: "b" } })),
              as(catalog.upsert("categories", { external_id: "b", expected_revision: 1, parent_id: { external_id: "a" } }))
            ],
            { concurrency: 2, mode: "either" }
          )
          const wins = results.filter((r) => r._tag === "Right")
          const losses = results.filter((r) => r._tag === "Left").map((r) => (r as { left: { code?: string } }).left.code)
          expect(wins).toHaveLength(1)
          expect(losses).toEqual(["category_cycle"])
        }
      }))
  })
})
