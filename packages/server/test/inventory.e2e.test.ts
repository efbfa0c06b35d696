import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { stockScopes, stockTenant, stockWrite } from "./StockTenant.js"
import { at, idOf, records } from "./Json.js"
import { call, expectError, freshKey, TestServer, TestServerLive } from "./TestServer.js"

layer(TestServerLive, { excludeTestServices: true, timeout: 120_000 })("inventory end to end", (it) => {
  describe("POST /inventory", () => {
    it.effect("creates the card on first write; its id is not the product's; GET by card id, 404 by product id", () =>
      Effect.gen(function* () {
        const t = yield* stockTenant()
        const created = yield* call(t.url, "POST", "/inventory", {
          token: t.token,
          body: stockWrite({ location_id: t.writable })
        })
        expect(created.status).toBe(200)
        expect(created.body).toMatchObject({
          outcome: "created",
          record: {
            source_kind: "product",
            source_id: t.productId,
            source_external_id: "p",
            balances: [{ location_id: t.writable, physical: "5", reserved: "0", incoming: "0", revision: 1 }]
          },
          event: {
            action: "set",
            quantity: "5",
            physical_before: "0",
            physical_after: "5",
            revision: 1,
            connection_id: t.connectionId
          }
        })
        const cardId = idOf(created.body)
        expect(cardId).not.toBe(t.productId)
        const read = yield* call(t.url, "GET", `/inventory/${cardId}`, { token: t.token })
        expect(read.status).toBe(200)
        expect(at(read.body, "record")).toEqual(at(created.body, "record"))
        expectError(yield* call(t.url, "GET", `/inventory/${t.productId}`, { token: t.token }), 404, "not_found")
        expectError(yield* call(t.url, "GET", "/inventory/not-a-uuid", { token: t.token }), 404, "not_found")
        const updated = yield* call(t.url, "POST", "/inventory", {
          token: t.token,
          body: stockWrite({
            source_id: t.productId,
            location_id: t.writable,
            action: "in",
            quantity: "3",
            revision: 1
          })
        })
        expect(updated.body).toMatchObject({
          outcome: "updated",
          record: { id: cardId, balances: [{ physical: "8", revision: 2 }] }
        })
        const feed = yield* call(t.url, "GET", "/changes?resource=inventory", { token: t.token })
        expect(at(feed.body, "records")).toEqual([
          expect.objectContaining({
            resource: "inventory",
            id: cardId,
            operation: "created",
            revision: 1,
            origin_connection_id: t.connectionId
          }),
          expect.objectContaining({ resource: "inventory", id: cardId, operation: "updated", revision: 2 })
        ])
      })
    )

    it.effect("revision 0 for a new balance, else the current one: 409 revision_conflict with current_revision", () =>
      Effect.gen(function* () {
        const t = yield* stockTenant()
        yield* call(t.url, "POST", "/inventory", { token: t.token, body: stockWrite({ location_id: t.writable }) })
        const stale = yield* call(t.url, "POST", "/inventory", {
          token: t.token,
          body: stockWrite({ location_id: t.writable, revision: 0 })
        })
        expectError(stale, 409, "revision_conflict")
        expect(at(stale.body, "error", "details")).toEqual({ current_revision: 1, expected_revision: 0 })
      })
    )

    it.effect("event_id: the same body replays the original result; another body is 409 event_id_reused", () =>
      Effect.gen(function* () {
        const t = yield* stockTenant()
        const body = stockWrite({ location_id: t.writable })
        const first = yield* call(t.url, "POST", "/inventory", { token: t.token, body })
        const again = yield* call(t.url, "POST", "/inventory", { token: t.token, body })
        expect(again.status).toBe(200)
        expect(again.body).toMatchObject({
          replayed: true,
          outcome: at(first.body, "outcome"),
          record: at(first.body, "record"),
          event: at(first.body, "event")
        })
        expectError(
          yield* call(t.url, "POST", "/inventory", { token: t.token, body: { ...body, quantity: "6" } }),
          409,
          "event_id_reused"
        )
        const key = freshKey()
        const keyed = stockWrite({ location_id: t.writable, action: "in", quantity: "1", revision: 1 })
        const once = yield* call(t.url, "POST", "/inventory", { token: t.token, idempotencyKey: key, body: keyed })
        expect(once.status).toBe(200)
        const repeated = yield* call(t.url, "POST", "/inventory", { token: t.token, idempotencyKey: key, body: keyed })
        expect(repeated.body).toMatchObject({ replayed: true, record: at(once.body, "record") })
        expectError(
          yield* call(t.url, "POST", "/inventory", {
            token: t.token,
            idempotencyKey: key,
            body: { ...keyed, note: "other" }
          }),
          409,
          "idempotency_key_reused"
        )
        expectError(
          yield* call(t.url, "POST", "/inventory", {
            token: t.token,
            idempotencyKey: null,
            body: stockWrite({ location_id: t.writable })
          }),
          422,
          "idempotency_key_invalid"
        )
      })
    )

    it.effect("strict body: every key required, no others, quantity pattern", () =>
      Effect.gen(function* () {
        const t = yield* stockTenant()
        const post = (body: unknown) => call(t.url, "POST", "/inventory", { token: t.token, body })
        const { note: _note, ...withoutNote } = stockWrite({ location_id: t.writable })
        for (const body of [
          withoutNote,
          stockWrite({ location_id: t.writable, extra: true }),
          stockWrite({ location_id: t.writable, quantity: "-1" }),
          stockWrite({ location_id: t.writable, quantity: "1.2345" }),
          stockWrite({ location_id: t.writable, quantity: "1234567890" }),
          stockWrite({ location_id: t.writable, action: "reserve" }),
          stockWrite({ location_id: t.writable, note: "" }),
          stockWrite({ location_id: t.writable, revision: -1 }),
          stockWrite({ location_id: t.writable, source_id: { external_id: "p", extra: 1 } })
        ]) {
          expectError(yield* post(body), 422, "validation_failed")
        }
        expectError(
          yield* call(t.url, "POST", "/inventory", {
            token: t.token,
            raw: "{",
            headers: { "content-type": "application/json" }
          }),
          400,
          "malformed_json"
        )
      })
    )

    it.effect(
      "rules: below zero, below reserved (reserved set by the admin), whole pieces, sources and locations",
      () =>
        Effect.gen(function* () {
          const t = yield* stockTenant()
          const { inventoryAdmin } = yield* TestServer
          const post = (body: unknown) => call(t.url, "POST", "/inventory", { token: t.token, body })
          const created = yield* post(stockWrite({ location_id: t.writable, quantity: "5" }))
          expectError(
            yield* post(stockWrite({ location_id: t.writable, action: "out", quantity: "6", revision: 1 })),
            422,
            "stock_below_zero"
          )
          const reserved = yield* inventoryAdmin.reserve(t.companyId, idOf(created.body), t.writable, {
            reserved: "2",
            incoming: "5"
          })
          expect(reserved.balances[0]).toMatchObject({ physical: "5", reserved: "2", incoming: "5", revision: 2 })
          // A reservation conflict is 409 (spec 7), with the quantities to resolve it.
          const belowReserved = yield* post(
            stockWrite({ location_id: t.writable, action: "out", quantity: "4", revision: 2 })
          )
          expectError(belowReserved, 409, "stock_below_reserved")
          expect(at(belowReserved.body, "error", "details")).toEqual({
            location_id: t.writable,
            reserved: "2",
            physical: "5",
            requested_physical: "1"
          })
          expectError(
            yield* post(stockWrite({ location_id: t.writable, action: "set", quantity: "1", revision: 2 })),
            409,
            "stock_below_reserved"
          )
          const out = yield* post(stockWrite({ location_id: t.writable, action: "out", quantity: "3", revision: 2 }))
          expect(at(out.body, "record", "balances", 0)).toMatchObject({
            physical: "2",
            reserved: "2",
            incoming: "5",
            revision: 3
          })
          expectError(
            yield* post(stockWrite({ location_id: t.writable, quantity: "1.5", revision: 3 })),
            422,
            "quantity_not_whole"
          )
          const fabric = yield* post(
            stockWrite({
              source_kind: "option",
              source_id: { external_id: "o" },
              location_id: t.writable,
              quantity: "12.375"
            })
          )
          expect(at(fabric.body, "record")).toMatchObject({
            source_kind: "option",
            source_id: t.optionId,
            balances: [{ physical: "12.375" }]
          })
          expectError(
            yield* post(stockWrite({ source_id: { external_id: "missing" }, location_id: t.writable })),
            422,
            "unresolved_reference"
          )
          expectError(
            yield* post(stockWrite({ source_kind: "option", source_id: t.productId, location_id: t.writable })),
            422,
            "unresolved_reference"
          )
          const readOnly = yield* post(stockWrite({ location_id: t.readOnly }))
          expectError(readOnly, 403, "location_not_writable")
          expect(at(readOnly.body, "error", "details")).toEqual({ location_id: t.readOnly })
          expectError(yield* post(stockWrite({ location_id: t.unassigned })), 403, "location_not_writable")
          expectError(yield* post(stockWrite({ location_id: globalThis.crypto.randomUUID() })), 422, "unknown_location")
        })
    )
  })

  describe("access", () => {
    it.effect(
      "stock endpoints need the stock package and inventory module (403 stock_not_enabled); catalog does not",
      () =>
        Effect.gen(function* () {
          const t = yield* stockTenant({ stock: false })
          expectError(yield* call(t.url, "GET", "/inventory", { token: t.token }), 403, "stock_not_enabled")
          expectError(
            yield* call(t.url, "GET", `/inventory/${t.productId}`, { token: t.token }),
            403,
            "stock_not_enabled"
          )
          expectError(
            yield* call(t.url, "POST", "/inventory", { token: t.token, body: stockWrite({ location_id: t.writable }) }),
            403,
            "stock_not_enabled"
          )
          expect((yield* call(t.url, "GET", "/products", { token: t.token })).status).toBe(200)
        })
    )

    it.effect("stock:read and stock:write scopes (403 insufficient_scope)", () =>
      Effect.gen(function* () {
        const t = yield* stockTenant()
        const reader = yield* t.key(["stock:read"])
        const writer = yield* t.key(["stock:write"])
        expectError(
          yield* call(t.url, "POST", "/inventory", { token: reader, body: stockWrite({ location_id: t.writable }) }),
          403,
          "insufficient_scope"
        )
        expectError(yield* call(t.url, "GET", "/inventory", { token: writer }), 403, "insufficient_scope")
        expect(
          (yield* call(t.url, "POST", "/inventory", { token: writer, body: stockWrite({ location_id: t.writable }) }))
            .status
        ).toBe(200)
        expect((yield* call(t.url, "GET", "/inventory", { token: reader })).status).toBe(200)
      })
    )
  })

  describe("GET /inventory", () => {
    it.effect(
      "pages by inventory item id and filters by source_kind, source_id and location_id; unknown parameters are 422",
      () =>
        Effect.gen(function* () {
          const t = yield* stockTenant()
          const a = yield* call(t.url, "POST", "/inventory", {
            token: t.token,
            body: stockWrite({ location_id: t.writable })
          })
          const b = yield* call(t.url, "POST", "/inventory", {
            token: t.token,
            body: stockWrite({ source_kind: "option", source_id: t.optionId, location_id: t.writable })
          })
          const [first, second] = [idOf(a.body), idOf(b.body)].sort()
          const page1 = yield* call(t.url, "GET", "/inventory?limit=1", { token: t.token })
          expect(page1.body).toMatchObject({ has_more: true, next_cursor: first, records: [{ id: first }] })
          const page2 = yield* call(t.url, "GET", `/inventory?limit=1&cursor=${at(page1.body, "next_cursor")}`, {
            token: t.token
          })
          expect(page2.body).toMatchObject({ has_more: false, next_cursor: null, records: [{ id: second }] })
          const options = yield* call(t.url, "GET", "/inventory?source_kind=option", { token: t.token })
          expect(records(options.body).map((r) => r.id)).toEqual([idOf(b.body)])
          const bySource = yield* call(t.url, "GET", `/inventory?source_id=${t.productId}`, { token: t.token })
          expect(records(bySource.body).map((r) => r.id)).toEqual([idOf(a.body)])
          expect(
            at((yield* call(t.url, "GET", `/inventory?location_id=${t.readOnly}`, { token: t.token })).body, "records")
          ).toEqual([])
          expectError(yield* call(t.url, "GET", "/inventory?sku=1", { token: t.token }), 422, "validation_failed")
          expectError(yield* call(t.url, "GET", "/inventory?limit=101", { token: t.token }), 422, "validation_failed")
        })
    )
  })

  describe("concurrent writes to one balance", () => {
    it.effect("two clients with the same revision: exactly one wins, the other gets revision_conflict", () =>
      Effect.gen(function* () {
        const t = yield* stockTenant()
        const other = yield* t.key(stockScopes)
        yield* call(t.url, "POST", "/inventory", {
          token: t.token,
          body: stockWrite({ location_id: t.writable, quantity: "10" })
        })
        const replies = yield* Effect.all(
          [t.token, other].map((token, i) =>
            call(t.url, "POST", "/inventory", {
              token,
              body: stockWrite({ location_id: t.writable, action: "out", quantity: String(i + 1), revision: 1 })
            })
          ),
          { concurrency: "unbounded" }
        )
        expect(replies.map((r) => r.status).sort()).toEqual([200, 409])
        const loser = replies.find((r) => r.status === 409)!
        expect(at(loser.body, "error")).toMatchObject({
          code: "revision_conflict",
          details: { current_revision: 2, expected_revision: 1 }
        })
        const winner = replies.find((r) => r.status === 200)!
        const card = yield* call(t.url, "GET", `/inventory/${idOf(winner.body)}`, { token: t.token })
        expect(at(card.body, "record", "balances", 0)).toMatchObject({
          physical: at(winner.body, "event", "physical_after"),
          revision: 2
        })
      })
    )

    it.effect("many concurrent `in` writes, retried on conflict, end with the exact sum", () =>
      Effect.gen(function* () {
        const t = yield* stockTenant()
        const created = yield* call(t.url, "POST", "/inventory", {
          token: t.token,
          body: stockWrite({ location_id: t.writable, quantity: "0" })
        })
        const cardId = idOf(created.body)
        const clients = yield* Effect.all(Array.from({ length: 6 }, () => t.key(stockScopes)))
        let conflicts = 0
        const addOnce = (token: string, quantity: string) =>
          Effect.gen(function* () {
            const card = yield* call(t.url, "GET", `/inventory/${cardId}`, { token })
            const revision = at(card.body, "record", "balances", 0, "revision")
            const reply = yield* call(t.url, "POST", "/inventory", {
              token,
              body: stockWrite({ location_id: t.writable, action: "in", quantity, revision })
            })
            if (reply.status === 409 && at(reply.body, "error", "code") === "revision_conflict") {
              conflicts++
              return yield* Effect.fail("conflict" as const)
            }
            expect(reply.status).toBe(200)
          }).pipe(Effect.retry({ times: 50 }))
        yield* Effect.all(
          clients.map((token) => Effect.forEach(["1", "2", "3"], (q) => addOnce(token, q))),
          { concurrency: "unbounded" }
        )
        const card = yield* call(t.url, "GET", `/inventory/${cardId}`, { token: t.token })
        expect(at(card.body, "record", "balances", 0)).toMatchObject({
          physical: String(6 * (1 + 2 + 3)),
          revision: 1 + 6 * 3
        })
        expect(conflicts).toBeGreaterThan(0)
      })
    )
  })
})
