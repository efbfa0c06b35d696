import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { at, idOf, record } from "./Json.js"
import { call, freshKey, testDatabase, TestServer, TestServerLive } from "./TestServer.js"

const writer = ["catalog:read", "catalog:write"]

// The same races as multi-instance.e2e.test.ts, on the default SQLite server: its transactions must give
// the same guarantees (the update is a compare-and-set on the revision, the mapping insert skips on
// conflict), so that moving to PostgreSQL changes no outcome a client sees.
layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })(`concurrent writes on ${testDatabase}`, (it) => {
  it.effect("concurrent updates with one expected_revision: one success per revision, the rest revision_conflict", () =>
    Effect.gen(function* () {
      const { tenant, url } = yield* TestServer
      const token = yield* (yield* tenant()).key(writer)
      const upsert = (body: Record<string, unknown>) =>
        call(url, "POST", "/categories/upsert", { token, body, idempotencyKey: freshKey() })
      expect((yield* upsert({ external_id: "sofa", name: "rev 1" })).status).toBe(200)
      for (let revision = 1; revision <= 3; revision++) {
        const replies = yield* Effect.all(
          Array.from({ length: 4 }, (_, i) =>
            upsert({ external_id: "sofa", expected_revision: revision, name: `rev ${revision + 1} by ${i}` })
          ),
          { concurrency: "unbounded" }
        )
        expect(
          replies.map((r) => (r.status === 200 ? at(r.body, "outcome") : at(r.body, "error", "code"))).sort()
        ).toEqual(["revision_conflict", "revision_conflict", "revision_conflict", "updated"])
        const winner = replies.find((r) => r.status === 200)!
        const stored = record((yield* call(url, "GET", "/categories?external_id=sofa", { token })).body, "records", 0)
        expect({ revision: stored.revision, name: stored.name }).toEqual({
          revision: revision + 1,
          name: at(winner.body, "record", "name")
        })
      }
    })
  )

  it.effect("concurrent creates of one external_id yield one record", () =>
    Effect.gen(function* () {
      const { tenant, url } = yield* TestServer
      const token = yield* (yield* tenant()).key(writer)
      const replies = yield* Effect.all(
        Array.from({ length: 4 }, () =>
          call(url, "POST", "/categories/upsert", {
            token,
            body: { external_id: "chair", name: "Chair" },
            idempotencyKey: freshKey()
          })
        ),
        { concurrency: "unbounded" }
      )
      expect(replies.filter((r) => r.status === 200 && at(r.body, "outcome") === "created")).toHaveLength(1)
      for (const r of replies.filter((r) => r.status !== 200 || at(r.body, "outcome") !== "created")) {
        // A request that reads the mapping after the winner committed is an update without expected_revision.
        expect([r.status, at(r.body, "error", "code")]).toEqual([409, "revision_conflict"])
      }
      expect(at((yield* call(url, "GET", "/categories?external_id=chair", { token })).body, "records")).toHaveLength(1)
    })
  )

  it.effect(
    "concurrent requests with one Idempotency-Key: one runs, the others wait for it and replay its answer; a failed one frees the key for the next",
    () =>
      Effect.gen(function* () {
        const { tenant, url } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const idempotencyKey = freshKey()
        const replies = yield* Effect.all(
          Array.from({ length: 6 }, () =>
            call(url, "POST", "/categories/upsert", {
              token,
              body: { external_id: "stool", name: "Stool" },
              idempotencyKey
            })
          ),
          { concurrency: "unbounded" }
        )
        // The claim commits with the write, so a duplicate never sees it running: it waits, then replays.
        expect(replies.map((r) => [r.status, at(r.body, "outcome"), at(r.body, "replayed") === true])).toEqual(
          expect.arrayContaining([[200, "created", false]])
        )
        expect(replies.filter((r) => r.status === 200 && at(r.body, "replayed") === true)).toHaveLength(5)
        expect(new Set(replies.map((r) => idOf(r.body))).size).toBe(1)
        expect(at((yield* call(url, "GET", "/changes?resource=categories", { token })).body, "records")).toHaveLength(1)

        const failingKey = freshKey()
        const failed = yield* Effect.all(
          Array.from({ length: 4 }, () =>
            call(url, "POST", "/categories/upsert", {
              token,
              body: { external_id: "bench", name: "Bench", expected_revision: 3 },
              idempotencyKey: failingKey
            })
          ),
          { concurrency: "unbounded" }
        )
        // A failed write is not stored: each request with the key runs it (and fails the same way).
        expect(failed.map((r) => [r.status, at(r.body, "error", "code")])).toEqual(
          Array.from({ length: 4 }, () => [409, "revision_conflict"])
        )
      })
  )
})
