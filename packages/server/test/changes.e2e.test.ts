import { expect, layer } from "@effect/vitest"
import { ChangesApi } from "@catalog-sync/contract"
import { Effect, Schema } from "effect"
import { at, errorOf, idOf, str } from "./Json.js"
import { call, TestServer, TestServerLive } from "./TestServer.js"

const feedPage = Schema.decodeUnknownSync(ChangesApi.ChangesResponse)

const writer = ["catalog:read", "catalog:write", "prices:read", "prices:write"]

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("GET /changes end to end", (it) => {
  it.effect("a connector pages the list, then follows the feed from change_cursor and skips its own writes", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const t = yield* tenant()
      const erp = yield* t.key(writer)
      const shop = yield* t.key(writer, { connectionId: yield* t.newConnection })
      const shopConnection = str((yield* call(url, "GET", "/me", { token: shop })).body, "principal", "connection_id")
      yield* call(url, "POST", "/categories/upsert", { token: erp, body: { external_id: "c1", name: "One" } })
      const list = yield* call(url, "GET", "/categories", { token: shop })
      expect(at(list.body, "change_cursor")).toMatch(/^c2_/)
      yield* call(url, "POST", "/categories/upsert", { token: erp, body: { external_id: "c2", name: "Two" } })
      yield* call(url, "POST", "/categories/upsert", { token: shop, body: { external_id: "shop-c3", name: "Three" } })
      const reply = yield* call(url, "GET", `/changes?cursor=${str(list.body, "change_cursor")}&limit=10`, {
        token: shop
      })
      expect(reply.status).toBe(200)
      const feed = feedPage(reply.body)
      expect(feed.records.map((r) => [r.operation, r.external_id])).toEqual([
        ["created", null],
        ["created", "shop-c3"]
      ])
      const foreign = feed.records.filter((r) => r.origin_connection_id !== shopConnection)
      expect(foreign).toHaveLength(1)
      const empty = yield* call(url, "GET", `/changes?cursor=${feed.next_cursor}`, { token: shop })
      expect(empty.body).toMatchObject({ records: [], next_cursor: feed.next_cursor, has_more: false })
    })
  )

  it.effect("filters by resource and scope; bad parameters are 422", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const t = yield* tenant()
      const token = yield* t.key(writer)
      const cat = yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "c", name: "C" } })
      yield* call(url, "POST", "/products/upsert", {
        token,
        body: { external_id: "p", name: "P", category_ids: [idOf(cat.body)] }
      })
      const products = feedPage((yield* call(url, "GET", "/changes?resource=products", { token })).body)
      expect(products.records.map((r) => r.resource)).toEqual(["products"])
      const stockOnly = yield* t.key(["stock:read"])
      const hidden = feedPage((yield* call(url, "GET", "/changes", { token: stockOnly })).body)
      expect(hidden.records).toEqual([])
      expect(hidden.next_cursor).toBe(products.next_cursor)
      for (const query of ["cursor=xyz", "limit=0", "limit=101", "resource=orders", "since=1"]) {
        const bad = yield* call(url, "GET", `/changes?${query}`, { token })
        expect({ query, status: bad.status, code: errorOf(bad.body).code }).toEqual({
          query,
          status: 422,
          code: "validation_failed"
        })
      }
    })
  )

  it.effect("a cursor past the company's head (another company's, or forged in range) is 422, not an empty page", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const [busy, quiet] = [yield* (yield* tenant()).key(writer), yield* (yield* tenant()).key(writer)]
      for (const name of ["a", "b", "c"])
        yield* call(url, "POST", "/categories/upsert", { token: busy, body: { external_id: name, name } })
      yield* call(url, "POST", "/categories/upsert", { token: quiet, body: { external_id: "q", name: "Q" } })
      const ahead = str((yield* call(url, "GET", "/changes", { token: busy })).body, "next_cursor")
      const own = str((yield* call(url, "GET", "/changes", { token: quiet })).body, "next_cursor")
      for (const cursor of [ahead, "c2_2", "c2_zzzzzzzzzzzz"]) {
        const refused = yield* call(url, "GET", `/changes?cursor=${cursor}`, { token: quiet })
        expect({ cursor, status: refused.status, error: at(refused.body, "error") }).toEqual({
          cursor,
          status: 422,
          error: {
            code: "validation_failed",
            message: "the cursor is not valid",
            details: [{ path: "query.cursor", message: expect.stringContaining("next_cursor or change_cursor") }]
          }
        })
      }
      for (const cursor of ["c2_0", own]) {
        const page = yield* call(url, "GET", `/changes?cursor=${cursor}`, { token: quiet })
        expect({ status: page.status, next: at(page.body, "next_cursor") }).toEqual({ status: 200, next: own })
      }
    })
  )
})
