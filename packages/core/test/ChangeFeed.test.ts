import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer } from "effect"
import * as fc from "fast-check"
import { CatalogService } from "../src/Catalog/CatalogService.js"
import { ChangeFeed, type FeedParams } from "../src/Changes/ChangeFeed.js"
import { Transactor } from "../src/Shared/Transactor.js"
import { as, category, company, list, principal, TestLayer, upsert } from "./support.js"

const Live = ChangeFeed.Default.pipe(Layer.provideMerge(TestLayer))

const read = (params: Partial<FeedParams> = {}) =>
  Effect.flatMap(ChangeFeed, (feed) => feed.read({ limit: 50, ...params }))

/** Follows the feed from `cursor` to its end in pages of `limit`, as a connector would. */
const follow = (cursor: string | undefined, limit: number) =>
  Effect.gen(function* () {
    const seen: Array<{ id: string; revision: number; resource: string }> = []
    let next = cursor
    for (;;) {
      const page = yield* read({ cursor: next, limit })
      seen.push(...page.records.map((r) => ({ id: r.id, revision: r.revision, resource: r.resource })))
      expect(page.next_cursor).toEqual(expect.any(String))
      next = page.next_cursor
      if (!page.has_more) return { seen, cursor: next }
    }
  })

layer(Live)("change feed", (it) => {
  it.effect("lists created, updated and archived changes in order with the reader's external ids and the origin", () =>
    Effect.gen(function* () {
      const who = principal()
      const cat = yield* category("c").pipe(as(who))
      const created = yield* upsert("products", { external_id: "p", name: "P", category_ids: [cat.id] }).pipe(as(who))
      yield* upsert("products", { external_id: "p", expected_revision: 1, name: "P2" }).pipe(as(who))
      const page = yield* read().pipe(as(who))
      expect(page.records.map((r) => [r.resource, r.operation, r.revision, r.external_id])).toEqual([
        ["categories", "created", 1, "c"],
        ["products", "created", 1, "p"],
        ["products", "updated", 2, "p"]
      ])
      expect(page.records[1]).toMatchObject({ id: created.record.id, origin_connection_id: who.connectionId })
      const again = yield* read({ cursor: page.next_cursor }).pipe(as(who))
      expect(again).toEqual({ records: [], next_cursor: page.next_cursor, has_more: false })
      const other = yield* read().pipe(as(principal(who.company)))
      expect(other.records.map((r) => r.external_id)).toEqual([null, null, null])
    })
  )

  it.effect("a change the key may not read is left out but still advances the cursor", () =>
    Effect.gen(function* () {
      const settings = company()
      const writer = principal(settings)
      const cat = yield* category("c").pipe(as(writer))
      yield* upsert("products", { external_id: "p", name: "P", category_ids: [cat.id] }).pipe(as(writer))
      const catalogReader = principal(settings, ["catalog:read"])
      const start = yield* read().pipe(as(catalogReader))
      yield* upsert("products", { external_id: "p", mode: "prices", expected_revision: 1, price: "10" }).pipe(
        as(writer)
      )
      const after = yield* read({ cursor: start.next_cursor }).pipe(as(catalogReader))
      expect(after.records).toEqual([])
      expect(after.next_cursor).not.toBe(start.next_cursor)
      const priceReader = principal(settings, ["prices:read"])
      const prices = yield* read({ cursor: start.next_cursor }).pipe(as(priceReader))
      expect(prices.records.map((r) => [r.operation, r.revision])).toEqual([["updated", 2]])
      const none = yield* Effect.flip(read().pipe(as(principal(settings, ["catalog:write"]))))
      expect(none).toMatchObject({ _tag: "ScopeDenied" })
    })
  )

  it.effect("a price reader sees the creation and the archive of a product, which change its price list", () =>
    Effect.gen(function* () {
      const settings = company()
      const writer = principal(settings)
      const cat = yield* category("c").pipe(as(writer))
      const created = yield* upsert("products", { external_id: "p", name: "P", category_ids: [cat.id] }).pipe(
        as(writer)
      )
      yield* Effect.flatMap(CatalogService, (s) => s.archive(created.record.id as never, 1)).pipe(as(writer))
      const prices = yield* read({ resources: ["products"] }).pipe(as(principal(settings, ["prices:read"])))
      expect(prices.records.map((r) => r.operation)).toEqual(["created", "archived"])
      const categoriesForPrices = yield* read({ resources: ["categories"] }).pipe(
        as(principal(settings, ["prices:read"]))
      )
      expect(categoriesForPrices.records).toEqual([])
    })
  )

  it.effect("each reader sees the updates that touch its part: coefficients are prices, cost is costs", () =>
    Effect.gen(function* () {
      const settings = company()
      const writer = principal(settings)
      const cat = yield* category("c").pipe(as(writer))
      const type = (yield* upsert("customization-types", { external_id: "fabric", name: "Fabric" }).pipe(as(writer)))
        .record
      const field = { external_id: "main", name: "Main fabric", type_id: type.id }
      yield* upsert("products", { external_id: "p", name: "P", category_ids: [cat.id], fields: [field] }).pipe(
        as(writer)
      )
      const readers = {
        catalog: principal(settings, ["catalog:read"]),
        prices: principal(settings, ["prices:read"]),
        costs: principal(settings, ["costs:read"])
      }
      const start = yield* read().pipe(as(writer))
      const update = (revision: number, changes: Record<string, unknown>) =>
        upsert("products", { external_id: "p", expected_revision: revision, ...changes }).pipe(as(writer))
      yield* update(1, { fields: [{ ...field, coefficient: "1.5" }] })
      yield* update(2, { mode: "combined", cost: "5" })
      yield* update(3, { mode: "combined", name: "Q", price: "10", cost: "6" })
      yield* update(4, { fields: [{ ...field, name: "Main", coefficient: "1.5" }] })
      const seen = yield* Effect.forEach(Object.values(readers), (reader) =>
        Effect.map(read({ cursor: start.next_cursor }).pipe(as(reader)), (page) => page.records.map((r) => r.revision))
      )
      expect(seen).toEqual([
        [4, 5],
        [2, 4],
        [3, 4]
      ])
    })
  )

  it.effect("the first list page's change_cursor misses nothing written after the list", () =>
    Effect.gen(function* () {
      const who = principal()
      yield* category("a").pipe(as(who))
      const page = yield* list("categories").pipe(as(who))
      yield* category("b").pipe(as(who))
      const feed = yield* read({ cursor: page.change_cursor! }).pipe(as(who))
      expect(feed.records.map((r) => r.external_id)).toEqual(["b"])
    })
  )

  it.effect("forged cursors and unknown resources are validation errors", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(read({ cursor: "not-a-cursor" }).pipe(as(principal())))
      expect(error).toMatchObject({ _tag: "ValidationFailed", issues: [{ path: "query.cursor" }] })
    })
  )

  it.effect(
    "a cursor past the company's head (another company's, or forged in range) is refused, not handed back",
    () =>
      Effect.gen(function* () {
        const busy = principal()
        for (const name of ["a", "b", "c"]) yield* category(name).pipe(as(busy))
        const ahead = (yield* read().pipe(as(busy))).next_cursor
        const quiet = principal()
        yield* category("q").pipe(as(quiet))
        const own = yield* read().pipe(as(quiet))
        for (const cursor of [ahead, "c2_2", "c2_zzzzzzzzzzzz"]) {
          const error = yield* Effect.flip(read({ cursor }).pipe(as(quiet)))
          expect(error).toMatchObject({ _tag: "ValidationFailed", issues: [{ path: "query.cursor" }] })
        }
        // Its own cursors, up to the head, still read.
        for (const cursor of ["c2_0", own.next_cursor]) {
          expect((yield* read({ cursor }).pipe(as(quiet))).next_cursor).toBe(own.next_cursor)
        }
      })
  )

  it.effect("a reader outside a transaction is not handed the head of changes the transaction may roll back", () =>
    Effect.gen(function* () {
      const who = principal()
      yield* category("a").pipe(as(who))
      const before = yield* read().pipe(as(who))
      const transactor = yield* Transactor
      const written = yield* Deferred.make<void>()
      const readDone = yield* Deferred.make<void>()
      const writer = yield* Effect.forkChild(
        transactor.withTransaction(
          category("b").pipe(
            as(who),
            Effect.andThen(Deferred.succeed(written, undefined)),
            Effect.andThen(Deferred.await(readDone)),
            Effect.andThen(Effect.fail("rolled back"))
          )
        )
      )
      yield* Deferred.await(written)
      const during = yield* read({ cursor: before.next_cursor }).pipe(as(who))
      yield* Deferred.succeed(readDone, undefined)
      expect(Exit.isFailure(yield* Fiber.await(writer))).toBe(true)
      expect(during).toEqual({ records: [], next_cursor: before.next_cursor, has_more: false })
      expect((yield* read({ cursor: during.next_cursor }).pipe(as(who))).records).toEqual([])
    })
  )

  it.effect("following the feed in any page size while writes go on sees every change exactly once, in order", () =>
    Effect.gen(function* () {
      const runs = fc.sample(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 4 })), {
          minLength: 1,
          maxLength: 12
        }),
        15
      )
      for (const steps of runs) {
        const who = principal()
        let cursor: string | undefined
        const seen: Array<string> = []
        let written = 0
        for (const [writes, limit] of steps) {
          for (let i = 0; i < writes; i++) yield* category(`c${written++}`).pipe(as(who))
          const result = yield* follow(cursor, limit).pipe(as(who))
          seen.push(...result.seen.map((r) => r.id))
          cursor = result.cursor
        }
        const all = yield* follow(undefined, 100).pipe(as(who))
        expect(seen).toEqual(all.seen.map((r) => r.id))
        expect(new Set(seen).size).toBe(written)
      }
    })
  )
})
