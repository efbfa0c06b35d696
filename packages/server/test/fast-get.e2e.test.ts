import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, expectError, TestServer, TestServerLive } from "./TestServer.js"
import { expectSameAnswer } from "./SameAnswer.js"

const writer = ["catalog:read", "catalog:write", "prices:read", "prices:write"]

/**
 * `GET /{resource}/{id}` is answered outside HttpApi's router when its URL is exactly a record's path
 * (adapter-http `FastGet`); the same URL with an empty query (`?`) takes HttpApi's route. Both must give
 * the same answer: status, body (but its request id), error codes and the envelope's headers.
 */
const bothPaths = (url: string, path: string, token?: string) =>
  Effect.all([
    call(url, "GET", path, token === undefined ? {} : { token }),
    call(url, "GET", `${path}?`, token === undefined ? {} : { token })
  ])

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("GET by id outside the router", (it) => {
  it.effect("answers a record, in any letter case of its id, as HttpApi's route does", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const token = yield* (yield* tenant()).key(writer)
      const category = (yield* call(url, "POST", "/categories/upsert", {
        token,
        body: { external_id: "c1", name: "C1" }
      })).body.record
      const product = (yield* call(url, "POST", "/products/upsert", {
        token,
        body: { external_id: "p1", name: "P1", mode: "combined", price: "10", category_ids: [{ external_id: "c1" }] }
      })).body.record
      const read = expectSameAnswer(yield* bothPaths(url, `/products/${product.id}`, token))
      expect(read).toMatchObject({ status: 200, body: { record: product } })
      expect(read.headers.get("ratelimit-remaining")).toEqual(expect.any(String))
      expectSameAnswer(yield* bothPaths(url, `/products/${product.id.toUpperCase()}`, token))
      expect((yield* call(url, "GET", `/products/${product.id.toUpperCase()}`, { token })).body.record).toEqual(product)
      expect(expectSameAnswer(yield* bothPaths(url, `/categories/${category.id}`, token)).body.record).toEqual(category)
      // A record of another resource is not found under this one.
      expectError(expectSameAnswer(yield* bothPaths(url, `/collections/${category.id}`, token)), 404, "not_found")
    })
  )

  it.effect("refuses as HttpApi's route does: unknown ids, other companies, missing or weak keys", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const mine = yield* tenant()
      const token = yield* mine.key(writer)
      yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "c1", name: "C1" } })
      const product = (yield* call(url, "POST", "/products/upsert", {
        token,
        body: { external_id: "p1", name: "P1", mode: "combined", price: "10", category_ids: [{ external_id: "c1" }] }
      })).body.record
      const path = `/products/${product.id}`
      expectError(
        expectSameAnswer(yield* bothPaths(url, "/products/0190aaaa-0000-7000-8000-000000000000", token)),
        404,
        "not_found"
      )
      const other = yield* (yield* tenant()).key(writer)
      expectError(expectSameAnswer(yield* bothPaths(url, path, other)), 404, "not_found")
      expect(expectSameAnswer(yield* bothPaths(url, path)).status).toBe(401)
      expect(expectSameAnswer(yield* bothPaths(url, path, "cs_live_not_a_key")).status).toBe(401)
      const pricesOnly = yield* mine.key(["prices:read"])
      expect(expectSameAnswer(yield* bothPaths(url, path, pricesOnly)).status).toBe(403)
    })
  )

  it.effect("leaves every other shape of the path to the router", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const token = yield* (yield* tenant()).key(writer)
      // Not a uuid: the contract's path schema answers 404; a trailing slash matches no route.
      expectError(yield* call(url, "GET", "/products/not-a-uuid", { token }), 404, "not_found")
      // A query: the route refuses it, since a read by id takes none.
      expectError(
        yield* call(url, "GET", "/products/0190aaaa-0000-7000-8000-000000000000?x=1", { token }),
        422,
        "validation_failed"
      )
      const slash = yield* call(url, "GET", "/products/0190aaaa-0000-7000-8000-000000000000/", { token })
      expect(slash.status).toBe(404)
    })
  )
})
