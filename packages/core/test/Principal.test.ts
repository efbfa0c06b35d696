import { ChangeFeed, Decode, Ids, Principal } from "@catalog-sync/core"
import { InMemory } from "@catalog-sync/core/memory"
import { CatalogService } from "@catalog-sync/core"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { company, uuid } from "./support.js"

const Services = Layer.mergeAll(CatalogService.CatalogService.Default, ChangeFeed.ChangeFeed.Default).pipe(
  Layer.provideMerge(InMemory.layer),
  Layer.provideMerge(Ids.IdsLive)
)

layer(Services)("Principal.make: a caller the embedding application authenticated itself", (it) => {
  it.effect("its writes are attributed to its connection, and its scopes bound what it may do", () =>
    Effect.gen(function* () {
      const catalog = yield* CatalogService.CatalogService
      const feed = yield* ChangeFeed.ChangeFeed
      const settings = company()
      const connectionId = uuid().toUpperCase()
      const writer = Principal.make({ company: settings, connectionId, scopes: ["catalog:read", "catalog:write"] })
      expect(writer).toMatchObject({ keyId: "embedded", features: { stock: false } })

      const body = yield* Effect.fromResult(Decode.decodeUpsert("categories", { external_id: "sofas", name: "Sofas" }))
      const written = yield* catalog
        .upsert("categories", body)
        .pipe(Effect.provideService(Principal.CurrentPrincipal, writer))
      expect(written.outcome).toBe("created")

      const page = yield* feed
        .read({ limit: 10 })
        .pipe(Effect.provide(Principal.layer({ company: settings, connectionId: uuid(), scopes: ["catalog:read"] })))
      expect(page.records.map((change) => change.origin_connection_id)).toEqual([connectionId.toLowerCase()])

      const reader = Principal.make({
        company: settings,
        connectionId: uuid(),
        scopes: ["catalog:read"],
        keyId: "shop",
        stock: true
      })
      expect(reader).toMatchObject({ keyId: "shop", features: { stock: true } })
      const denied = yield* Effect.flip(
        catalog.upsert("categories", body).pipe(Effect.provideService(Principal.CurrentPrincipal, reader))
      )
      expect(denied).toMatchObject({ _tag: "ScopeDenied", required: ["catalog:write"] })
    })
  )

  it("refuses a connection id that is not a uuid", () => {
    expect(() => Principal.make({ company: company(), connectionId: "erp", scopes: [] })).toThrow(
      /Universally Unique Identifier, got "erp"/
    )
  })
})
