import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, freshKey, TestServer, TestServerWith, testDatabase } from "../TestServer.js"
import { failingSql } from "./FailingSql.js"

const writer = ["catalog:read", "catalog:write", "prices:read", "prices:write", "costs:read", "costs:write"]
const db = failingSql(testDatabase)

layer(TestServerWith({ sql: db.wrap }), { excludeTestServices: true, timeout: 60_000 })("fault injection: the N-th statement fails", (it) => {
  it.effect("a product upsert is all or nothing at every statement, answers 503 + Retry-After, and its replay succeeds", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      let n = 1
      for (;; n++) {
        const token = yield* (yield* tenant()).key(writer)
        const category = yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "sofas", name: "Sofas" } })
        const body = { external_id: "p-1", name: "Sofa", category_ids: [category.body.record.id], mode: "combined", price: "10" }
        const idempotencyKey = freshKey()
        db.arm(n, /\bjobs\b/)
        const reply = yield* call(url, "POST", "/products/upsert", { token, body, idempotencyKey })
        const fired = !db.armed
        db.disarm()
        if (!fired) {
          // N is past the last statement of the write: the sweep covered them all.
          expect({ status: reply.status, body: reply.body }).toMatchObject({ status: 200 })
          break
        }
        expect({ n, at: db.at, status: reply.status, code: reply.body?.error?.code }).toEqual({ n, at: db.at, status: 503, code: "storage_unavailable" })
        expect(reply.headers.get("retry-after")).not.toBeNull()
        // Nothing half-applied: no record, no change row.
        const list = yield* call(url, "GET", "/products", { token })
        expect({ n, records: list.body.records ?? list.body.data }).toEqual({ n, records: [] })
        const feed = yield* call(url, "GET", "/changes?resource=products", { token })
        expect({ n, changes: feed.body.records }).toEqual({ n, changes: [] })
        // The same request with the same key succeeds once the fault is gone, applied once.
        const replay = yield* call(url, "POST", "/products/upsert", { token, body, idempotencyKey })
        expect({ n, status: replay.status, outcome: replay.body?.outcome, revision: replay.body?.record?.revision }).toEqual({ n, status: 200, outcome: "created", revision: 1 })
        const after = yield* call(url, "GET", "/changes?resource=products", { token })
        expect(after.body.records).toHaveLength(1)
      }
      console.log(`product upsert: ${n - 1} statements swept, ${db.injected} faults injected`)
      expect(n).toBeGreaterThan(2)
    }))
})

layer(TestServerWith({ sql: db.wrap }), { excludeTestServices: true, timeout: 60_000 })("fault injection: an archive", (it) => {
  it.effect("an archive is all or nothing at every statement, answers 503 + Retry-After, and its replay succeeds", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      let n = 1
      for (;; n++) {
        const token = yield* (yield* tenant()).key(writer)
        const category = yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "sofas", name: "Sofas" } })
        const product = yield* call(url, "POST", "/products/upsert", { token, body: { external_id: "p-1", name: "Sofa", category_ids: [category.body.record.id] } })
        const path = `/products/${product.body.record.id}`
        const idempotencyKey = freshKey()
        db.arm(n, /\bjobs\b/)
        const reply = yield* call(url, "DELETE", path, { token, body: { expected_revision: 1 }, idempotencyKey })
        const fired = !db.armed
        db.disarm()
        if (!fired) {
          expect({ status: reply.status, body: reply.body }).toMatchObject({ status: 200 })
          break
        }
        expect({ n, at: db.at, status: reply.status, code: reply.body?.error?.code }).toEqual({ n, at: db.at, status: 503, code: "storage_unavailable" })
        expect(reply.headers.get("retry-after")).not.toBeNull()
        // Nothing half-applied: still revision 1 and not archived, only the creation in the feed.
        const read = yield* call(url, "GET", path, { token })
        const current = read.body.record ?? read.body
        expect({ n, revision: current.revision, archived: current.state === "archived" }).toEqual({ n, revision: 1, archived: false })
        const feed = yield* call(url, "GET", "/changes?resource=products", { token })
        expect({ n, changes: feed.body.records.length }).toEqual({ n, changes: 1 })
        const replay = yield* call(url, "DELETE", path, { token, body: { expected_revision: 1 }, idempotencyKey })
        expect({ n, status: replay.status, state: replay.body?.record?.state, revision: replay.body?.record?.revision }).toEqual({ n, status: 200, state: "archived", revision: 2 })
        const after = yield* call(url, "GET", "/changes?resource=products", { token })
        expect(after.body.records).toHaveLength(2)
      }
      console.log(`archive: ${n - 1} statements swept, ${db.injected} faults injected in this file so far`)
      expect(n).toBeGreaterThan(2)
    }))
})
