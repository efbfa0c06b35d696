import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, expectError, type Reply, TestServer, TestServerLive } from "./TestServer.js"
import { comparable, expectSameAnswer } from "./SameAnswer.js"

const writer = ["catalog:read", "catalog:write", "prices:read", "prices:write"]

/**
 * `GET /changes?cursor=...` is answered outside HttpApi's router when the cursor is its only parameter
 * (adapter-http `FastPoll`); the same poll with the default limit spelled out (`&limit=50`) takes
 * HttpApi's route. Both must give the same answer: status, body (but its request id), error codes and
 * the envelope's headers.
 */
const bothPaths = (url: string, cursor: string, token?: string) =>
  Effect.all([
    call(url, "GET", `/changes?cursor=${cursor}`, token === undefined ? {} : { token }),
    call(url, "GET", `/changes?cursor=${cursor}&limit=50`, token === undefined ? {} : { token })
  ])

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("the feed poll outside the router", (it) => {
  it.effect("answers pages, the empty up-to-date poll and the change after it, as HttpApi's route does", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const token = yield* (yield* tenant()).key(writer)
      for (const n of [1, 2, 3])
        yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: `c${n}`, name: `C${n}` } })
      const first = expectSameAnswer(yield* bothPaths(url, "c2_0", token))
      expect(first.status).toBe(200)
      expect(first.body.records.map((change: { readonly operation: string }) => change.operation)).toEqual([
        "created",
        "created",
        "created"
      ])
      expect(first.body.has_more).toBe(false)
      expect(first.headers.get("ratelimit-remaining")).toEqual(expect.any(String))
      // A cursor of the former global positions (`c1_`) is read on the fast path too.
      expect(expectSameAnswer(yield* bothPaths(url, "c1_0", token)).body.records).toEqual(first.body.records)
      const upToDate = expectSameAnswer(yield* bothPaths(url, first.body.next_cursor, token))
      expect(upToDate.body).toMatchObject({ records: [], next_cursor: first.body.next_cursor, has_more: false })
      yield* call(url, "POST", "/categories/upsert", {
        token,
        body: { external_id: "c1", name: "C1 renamed", expected_revision: 1 }
      })
      const next = expectSameAnswer(yield* bothPaths(url, first.body.next_cursor, token))
      expect(next.body.records).toEqual([
        expect.objectContaining({ resource: "categories", external_id: "c1", revision: 2, operation: "updated" })
      ])
    })
  )

  it.effect("refuses as HttpApi's route does: missing, unknown and weak keys, cursors out of range", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const mine = yield* tenant()
      const token = yield* mine.key(writer)
      expect(expectSameAnswer(yield* bothPaths(url, "c2_0")).status).toBe(401)
      expect(expectSameAnswer(yield* bothPaths(url, "c2_0", "cs_live_not_a_key")).status).toBe(401)
      const writeOnly = yield* mine.key(["catalog:write"])
      expectError(expectSameAnswer(yield* bothPaths(url, "c2_0", writeOnly)), 403, "insufficient_scope")
      // The pattern admits 12 digits, more than a safe integer holds: the use case refuses it.
      expectError(expectSameAnswer(yield* bothPaths(url, "c2_zzzzzzzzzzzz", token)), 422, "validation_failed")
    })
  )

  it.effect("refuses a key over its rate limit as the route does: 429 with Retry-After and the RateLimit headers", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const token = yield* (yield* tenant()).key(writer)
      // A key's limit is 120 requests a minute (spec 8).
      yield* Effect.all(
        Array.from({ length: 120 }, () => call(url, "GET", "/changes?cursor=c2_0", { token })),
        { concurrency: 8 }
      )
      const [fast, routed] = yield* bothPaths(url, "c2_0", token)
      // The seconds to wait are read from the clock at each request: compared apart from the rest.
      const clockless = (reply: Reply) => {
        const { retry_after, message, ...error } = reply.body.error
        expect([retry_after, message]).toEqual([
          Number(reply.headers.get("retry-after")),
          `rate limit of 120 requests per minute reached; retry after ${retry_after} s`
        ])
        return { ...comparable(reply), body: { ...reply.body, request_id: "", error } }
      }
      expect(clockless(fast)).toEqual(clockless(routed))
      expectError(fast, 429, "rate_limited")
      expect(fast.headers.get("retry-after")).toEqual(expect.any(String))
      expect(routed.headers.get("retry-after")).toEqual(expect.any(String))
      expect(fast.headers.get("ratelimit-remaining")).toBe("0")
    })
  )

  it.effect("shows a company its own changes only, whatever cursor it sends", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const token = yield* (yield* tenant()).key(writer)
      yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "mine", name: "Mine" } })
      const other = yield* (yield* tenant()).key(writer)
      const seen = expectSameAnswer(yield* bothPaths(url, "c2_0", other))
      expect(seen.body.records).toEqual([])
    })
  )

  it.effect("leaves every other shape of the query to the router", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const token = yield* (yield* tenant()).key(writer)
      expectError(yield* call(url, "GET", "/changes?cursor=C2_0", { token }), 422, "validation_failed")
      expectError(yield* call(url, "GET", "/changes?cursor=c2_0&x=1", { token }), 422, "validation_failed")
      expect((yield* call(url, "GET", "/changes?cursor=c2_%30", { token })).status).toBe(200)
      expect((yield* call(url, "GET", "/changes?limit=1&cursor=c2_0", { token })).body.records.length).toBeLessThan(2)
    })
  )
})
