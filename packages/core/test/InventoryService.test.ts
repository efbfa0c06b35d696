import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { Accounts, AuditLog, InventoryAdmin, InventoryService } from "@catalog-sync/core"
import { InMemory, InMemoryInventory } from "@catalog-sync/core/testing"
import { CatalogService } from "../src/Catalog/CatalogService.js"
import type { CompanyId } from "../src/Shared/Ids.js"
import { IdsLive } from "../src/Shared/Ids.js"
import type { Scope } from "../src/Shared/Scope.js"
import { as, company, principal, upsert, uuid } from "./support.js"

const Ports = InMemoryInventory.layer.pipe(Layer.provideMerge(InMemory.layer))
const TestLayer = Layer.mergeAll(
  InventoryService.InventoryService.Default,
  InventoryAdmin.InventoryAdmin.Default,
  CatalogService.Default
).pipe(
  Layer.provideMerge(Ports),
  Layer.provideMerge(Layer.merge(InMemory.accountsLayer, InMemory.peopleLayer)),
  Layer.provideMerge(IdsLive)
)

/** A company with a product, an option and locations: one writable, one read-only, one unassigned. */
const setup = (scopes?: ReadonlyArray<Scope>, stock = true) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts.Accounts
    const who = { ...principal(company(), scopes), features: { stock } }
    const full = principal(who.company, undefined, who.connectionId)
    const [writable, readOnly, unassigned] = [uuid(), uuid(), uuid()]
    for (const id of [writable, readOnly, unassigned]) {
      yield* accounts.saveLocation({
        id,
        company_id: who.company.id as CompanyId,
        name: "W",
        created_at: "2026-01-01T00:00:00.000Z"
      })
    }
    yield* accounts.assignLocation({ connection_id: who.connectionId, location_id: writable, writable: true })
    yield* accounts.assignLocation({ connection_id: who.connectionId, location_id: readOnly, writable: false })
    const catalog = Effect.gen(function* () {
      const category = yield* upsert("categories", { external_id: "c", name: "C" })
      const product = yield* upsert("products", { external_id: "p", name: "Sofa", category_ids: [category.record.id] })
      const metres = yield* upsert("products", {
        external_id: "m",
        name: "Rope",
        category_ids: [category.record.id],
        unit: "metre"
      })
      const bundle = yield* upsert("products", {
        external_id: "b",
        name: "Set",
        category_ids: [category.record.id],
        kind: "bundle",
        components: [{ product_id: product.record.id, quantity: 2 }]
      })
      const type = yield* upsert("customization-types", { external_id: "t", name: "Fabric" })
      const group = yield* upsert("customization-groups", { external_id: "g", name: "Book", type_id: type.record.id })
      const option = yield* upsert("customization-options", {
        external_id: "o",
        name: "Blue",
        group_id: group.record.id
      })
      return {
        product: product.record.id as string,
        metres: metres.record.id as string,
        bundle: bundle.record.id as string,
        option: option.record.id as string
      }
    })
    const ids = yield* as(full)(catalog)
    return { who, writable, readOnly, unassigned, ...ids }
  })

const body = (overrides: Record<string, unknown>) => ({
  event_id: uuid(),
  source_kind: "product",
  action: "set",
  quantity: "5",
  revision: 0,
  note: "count",
  ...overrides
})

const write = (b: Record<string, unknown>) =>
  Effect.flatMap(InventoryService.InventoryService, (s) => s.write(b as never))

layer(TestLayer)("InventoryService", (it) => {
  describe("writes", () => {
    it.effect(
      "the first write creates a card (not the product id) with a balance at revision 1 and a change entry",
      () =>
        Effect.gen(function* () {
          const t = yield* setup()
          const result = yield* as(t.who)(write(body({ source_id: t.product, location_id: t.writable })))
          expect(result.outcome).toBe("created")
          expect(result.record.id).not.toBe(t.product)
          expect(result.record).toMatchObject({ source_kind: "product", source_id: t.product, source_external_id: "p" })
          expect(result.record.balances).toEqual([
            expect.objectContaining({
              location_id: t.writable,
              physical: "5",
              reserved: "0",
              incoming: "0",
              revision: 1
            })
          ])
          expect(result.event).toMatchObject({ physical_before: "0", physical_after: "5", revision: 1, action: "set" })
          const changes = (yield* InMemory.Inspect).changes().filter((c) => c.recordId === result.record.id)
          expect(changes).toEqual([
            expect.objectContaining({ resource: "inventory", operation: "created", revision: 1, parts: ["stock"] })
          ])
          const again = yield* as(t.who)(
            write(
              body({
                source_id: { external_id: "p" },
                location_id: t.writable,
                action: "in",
                quantity: "2",
                revision: 1
              })
            )
          )
          expect(again.record.id).toBe(result.record.id)
          expect(again).toMatchObject({ outcome: "updated", record: { balances: [{ physical: "7", revision: 2 }] } })
          const same = yield* as(t.who)(
            write(body({ source_id: t.product, location_id: t.writable, quantity: "7", revision: 2 }))
          )
          expect(same).toMatchObject({ outcome: "unchanged", record: { balances: [{ physical: "7", revision: 2 }] } })
        })
    )

    it.effect("revisions: 0 for a new balance, else the current one (revision_conflict with current_revision)", () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const stale = yield* Effect.flip(
          as(t.who)(write(body({ source_id: t.product, location_id: t.writable, revision: 1 })))
        )
        expect(stale).toMatchObject({ code: "revision_conflict", current_revision: 0, expected_revision: 1 })
        yield* as(t.who)(write(body({ source_id: t.product, location_id: t.writable })))
        const conflict = yield* Effect.flip(as(t.who)(write(body({ source_id: t.product, location_id: t.writable }))))
        expect(conflict).toMatchObject({ code: "revision_conflict", current_revision: 1, expected_revision: 0 })
      })
    )

    it.effect("a repeated event_id replays the original result; another body is event_id_reused", () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const first = body({ source_id: t.product, location_id: t.writable, quantity: "3" })
        const original = yield* as(t.who)(write(first))
        yield* as(t.who)(
          write(body({ source_id: t.product, location_id: t.writable, action: "in", quantity: "1", revision: 1 }))
        )
        const replay = yield* as(t.who)(write({ ...first, quantity: "3.000" }))
        expect(replay).toEqual({ ...original, replayed: true })
        const reused = yield* Effect.flip(as(t.who)(write({ ...first, quantity: "4" })))
        expect(reused.code).toBe("event_id_reused")
        const otherConnection = yield* Effect.flip(as({ ...t.who, connectionId: uuid() as never })(write(first)))
        expect(otherConnection.code).toBe("event_id_reused")
      })
    )

    it.effect("set, in and out change physical stock only; below zero and below reserved are refused", () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const created = yield* as(t.who)(write(body({ source_id: t.product, location_id: t.writable, quantity: "5" })))
        const admin = yield* InventoryAdmin.InventoryAdmin
        const reserved = yield* admin.reserve(t.who.company.id, created.record.id, t.writable, {
          reserved: "2",
          incoming: "9"
        })
        expect(reserved.balances[0]).toMatchObject({ physical: "5", reserved: "2", incoming: "9", revision: 2 })
        const stale = yield* Effect.flip(
          as(t.who)(
            write(body({ source_id: t.product, location_id: t.writable, action: "out", quantity: "1", revision: 1 }))
          )
        )
        expect(stale).toMatchObject({ code: "revision_conflict", current_revision: 2 })
        const belowReserved = yield* Effect.flip(
          as(t.who)(
            write(body({ source_id: t.product, location_id: t.writable, action: "out", quantity: "4", revision: 2 }))
          )
        )
        expect(belowReserved.code).toBe("stock_below_reserved")
        const belowZero = yield* Effect.flip(
          as(t.who)(
            write(body({ source_id: t.product, location_id: t.writable, action: "out", quantity: "6", revision: 2 }))
          )
        )
        expect(belowZero.code).toBe("stock_below_zero")
        const out = yield* as(t.who)(
          write(body({ source_id: t.product, location_id: t.writable, action: "out", quantity: "3", revision: 2 }))
        )
        expect(out.record.balances[0]).toMatchObject({ physical: "2", reserved: "2", incoming: "9", revision: 3 })
        const set = yield* as(t.who)(
          write(body({ source_id: t.product, location_id: t.writable, action: "set", quantity: "8", revision: 3 }))
        )
        expect(set.record.balances[0]).toMatchObject({ physical: "8", reserved: "2", incoming: "9", revision: 4 })
      })
    )

    it.effect("a reservation is one audit entry by the acting operator; a refused one records none", () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const company = t.who.company.id as CompanyId
        const created = yield* as(t.who)(write(body({ source_id: t.product, location_id: t.writable })))
        const admin = yield* InventoryAdmin.InventoryAdmin
        const operator = { label: "cli:ops", userId: null, address: null }
        yield* admin
          .reserve(company, created.record.id, t.writable, { reserved: "2", incoming: "9.000" })
          .pipe(Effect.provideService(AuditLog.Actor, operator))
        const refused = yield* Effect.flip(admin.reserve(company, created.record.id, t.writable, { reserved: "1.5" }))
        expect(refused).toMatchObject({ code: "quantity_not_whole" })
        expect(yield* Effect.flip(admin.reserve(company, uuid(), t.writable, { reserved: "1" }))).toMatchObject({
          _tag: "RecordNotFound"
        })
        const entries = yield* Effect.flatMap(AuditLog.AuditLog, (audit) =>
          audit.list({ companyId: company, limit: 10 })
        )
        expect(entries).toEqual([
          expect.objectContaining({
            actor: "cli:ops",
            action: "stock.reserve",
            company_id: company,
            target: created.record.id,
            details: { location_id: t.writable, reserved: "2", incoming: "9" }
          })
        ])
      })
    )

    it.effect("whole numbers for pieces (unit piece or unset); decimals for other units and options", () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const piece = yield* Effect.flip(
          as(t.who)(write(body({ source_id: t.product, location_id: t.writable, quantity: "1.5" })))
        )
        expect(piece.code).toBe("quantity_not_whole")
        expect(
          (yield* as(t.who)(write(body({ source_id: t.product, location_id: t.writable, quantity: "2.000" })))).event
            .quantity
        ).toBe("2")
        expect(
          (yield* as(t.who)(write(body({ source_id: t.metres, location_id: t.writable, quantity: "1.25" })))).record
            .balances[0]!.physical
        ).toBe("1.25")
        const option = yield* as(t.who)(
          write(
            body({ source_kind: "option", source_id: { external_id: "o" }, location_id: t.writable, quantity: "0.125" })
          )
        )
        expect(option.record).toMatchObject({ source_kind: "option", source_id: t.option, source_external_id: "o" })
      })
    )

    it.effect("sources resolve like references; bundles have no stock; locations must be assigned writable", () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const codeOf = (b: Record<string, unknown>) => Effect.map(Effect.flip(as(t.who)(write(body(b)))), (e) => e.code)
        expect(yield* codeOf({ source_id: uuid(), location_id: t.writable })).toBe("unresolved_reference")
        expect(yield* codeOf({ source_id: { external_id: "nope" }, location_id: t.writable })).toBe(
          "unresolved_reference"
        )
        expect(yield* codeOf({ source_kind: "option", source_id: t.product, location_id: t.writable })).toBe(
          "unresolved_reference"
        )
        expect(yield* codeOf({ source_id: t.bundle, location_id: t.writable })).toBe("source_not_stocked")
        expect(yield* codeOf({ source_id: t.product, location_id: t.readOnly })).toBe("location_not_writable")
        expect(yield* codeOf({ source_id: t.product, location_id: t.unassigned })).toBe("location_not_writable")
        expect(yield* codeOf({ source_id: t.product, location_id: uuid() })).toBe("unknown_location")
      })
    )

    it.effect("stock features and scopes are required", () =>
      Effect.gen(function* () {
        const disabled = yield* setup(undefined, false)
        const service = yield* InventoryService.InventoryService
        expect(
          (yield* Effect.flip(
            as(disabled.who)(write(body({ source_id: disabled.product, location_id: disabled.writable })))
          )).code
        ).toBe("stock_not_enabled")
        expect((yield* Effect.flip(as(disabled.who)(service.list({ limit: 10 })))).code).toBe("stock_not_enabled")
        const readOnly = yield* setup(["stock:read"])
        expect(
          (yield* Effect.flip(
            as(readOnly.who)(write(body({ source_id: readOnly.product, location_id: readOnly.writable })))
          )).code
        ).toBe("insufficient_scope")
        const writeOnly = yield* setup(["stock:write"])
        expect((yield* Effect.flip(as(writeOnly.who)(service.get(uuid())))).code).toBe("insufficient_scope")
      })
    )

    it.effect("concurrent in writes retried on conflict end with the exact sum", () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const service = yield* InventoryService.InventoryService
        const created = yield* as(t.who)(write(body({ source_id: t.product, location_id: t.writable, quantity: "0" })))
        const addOne = Effect.gen(function* () {
          const card = yield* service.get(created.record.id)
          const revision = card.balances.find((b) => b.location_id === t.writable)!.revision
          return yield* write(
            body({ source_id: t.product, location_id: t.writable, action: "in", quantity: "1", revision })
          )
        }).pipe(Effect.retry({ while: (e) => e.code === "revision_conflict" }))
        yield* Effect.all(
          Array.from({ length: 20 }, () => as(t.who)(addOne)),
          { concurrency: "unbounded" }
        )
        const card = yield* as(t.who)(service.get(created.record.id))
        expect(card.balances[0]).toMatchObject({ physical: "20", revision: 21 })
      })
    )
  })

  describe("reads", () => {
    it.effect("get by inventory item id (a product id is not found); list with filters and cursor", () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const service = yield* InventoryService.InventoryService
        const a = yield* as(t.who)(write(body({ source_id: t.product, location_id: t.writable })))
        const b = yield* as(t.who)(write(body({ source_kind: "option", source_id: t.option, location_id: t.writable })))
        expect(yield* as(t.who)(service.get(a.record.id))).toEqual(a.record)
        expect((yield* Effect.flip(as(t.who)(service.get(t.product)))).code).toBe("not_found")
        const [first, second] = [a.record.id, b.record.id].sort()
        const page = yield* as(t.who)(service.list({ limit: 1 }))
        expect(page).toMatchObject({ has_more: true, next_cursor: first, records: [{ id: first }] })
        const next = yield* as(t.who)(service.list({ limit: 1, cursor: page.next_cursor! }))
        expect(next).toMatchObject({ has_more: false, next_cursor: null, records: [{ id: second }] })
        expect((yield* as(t.who)(service.list({ limit: 10, sourceKind: "option" }))).records.map((r) => r.id)).toEqual([
          b.record.id
        ])
        expect((yield* as(t.who)(service.list({ limit: 10, sourceId: t.product }))).records.map((r) => r.id)).toEqual([
          a.record.id
        ])
        expect((yield* as(t.who)(service.list({ limit: 10, locationId: t.readOnly }))).records).toEqual([])
      })
    )

    it.effect("a failed write leaves nothing behind (no card, no event)", () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const service = yield* InventoryService.InventoryService
        const exit = yield* Effect.exit(
          as(t.who)(write(body({ source_id: t.product, location_id: t.writable, action: "out", quantity: "1" })))
        )
        expect(Exit.isFailure(exit)).toBe(true)
        expect((yield* as(t.who)(service.list({ limit: 10 }))).records).toEqual([])
      })
    )
  })
})
