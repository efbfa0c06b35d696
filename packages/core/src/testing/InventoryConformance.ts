import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, type Layer, Option } from "effect"
import type { StockBalance, StockEvent, StockItem } from "../Inventory/Inventory.js"
import { InventoryRepository } from "../Inventory/InventoryRepository.js"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import { Transactor } from "../Shared/Transactor.js"

const uuid = () => globalThis.crypto.randomUUID()
const companyId = () => uuid() as CompanyId
const sortedIds = (n: number): ReadonlyArray<RecordId> =>
  Array.from({ length: n }, () => uuid()).sort() as Array<RecordId>
const at = "2026-01-01T00:00:00.000Z"

const item = (company: CompanyId, overrides: Partial<StockItem> = {}): StockItem => ({
  id: uuid() as RecordId,
  companyId: company,
  sourceKind: "product",
  sourceId: uuid() as RecordId,
  createdAt: at,
  ...overrides
})

const balance = (of: StockItem, locationId: string, overrides: Partial<StockBalance> = {}): StockBalance => ({
  companyId: of.companyId,
  itemId: of.id,
  locationId,
  physical: "0",
  reserved: "0",
  incoming: "0",
  revision: 1,
  updatedAt: at,
  ...overrides
})

/**
 * The contract every InventoryRepository must meet (in memory, SQLite, PostgreSQL), with the Transactor
 * it shares a transaction with. Each test works in fresh company ids, so one layer serves the suite.
 */
export const runInventoryConformance = (name: string, ports: Layer.Layer<InventoryRepository | Transactor, unknown>) =>
  layer(ports, { timeout: 60_000 })(`inventory port conformance: ${name}`, (it) => {
    describe("stock cards", () => {
      it.effect("ensureItem creates one card per company, source kind and source; findItem is scoped by company", () =>
        Effect.gen(function* () {
          const repo = yield* InventoryRepository
          const company = companyId()
          const first = item(company)
          const created = yield* repo.ensureItem(first)
          expect(created).toEqual({ ...first, balances: [] })
          const again = yield* repo.ensureItem({
            ...first,
            id: uuid() as RecordId,
            createdAt: "2027-01-01T00:00:00.000Z"
          })
          expect(again.id).toBe(first.id)
          const option = yield* repo.ensureItem({ ...first, id: uuid() as RecordId, sourceKind: "option" })
          expect(option.id).not.toBe(first.id)
          expect(Option.getOrThrow(yield* repo.findItem(company, first.id)).sourceId).toBe(first.sourceId)
          expect(Option.isNone(yield* repo.findItem(companyId(), first.id))).toBe(true)
          expect(Option.isNone(yield* repo.findItem(company, first.sourceId))).toBe(true)
          expect(Option.getOrThrow(yield* repo.findItemBySource(company, "option", first.sourceId)).id).toBe(option.id)
          expect(Option.isNone(yield* repo.findItemBySource(companyId(), "product", first.sourceId))).toBe(true)
          const foreign = yield* repo.ensureItem({ ...first, id: uuid() as RecordId, companyId: companyId() })
          expect(foreign.id).not.toBe(first.id)
        })
      )

      it.effect("listItems pages in id order with source and location filters, within the company", () =>
        Effect.gen(function* () {
          const repo = yield* InventoryRepository
          const company = companyId()
          const ids = sortedIds(5)
          const items = ids.map((id, i) => item(company, { id, sourceKind: i % 2 === 0 ? "product" : "option" }))
          yield* Effect.forEach([...items].reverse(), repo.ensureItem)
          yield* repo.ensureItem(item(companyId()))
          const location = uuid()
          yield* repo.saveBalance(balance(items[1]!, location), 0)
          yield* repo.saveBalance(balance(items[3]!, location), 0)
          yield* repo.saveBalance(balance(items[4]!, uuid()), 0)
          const page1 = yield* repo.listItems(company, { limit: 3 })
          expect(page1.map((c) => c.id)).toEqual(ids.slice(0, 3))
          const page2 = yield* repo.listItems(company, { limit: 3, cursor: ids[2] })
          expect(page2.map((c) => c.id)).toEqual(ids.slice(3))
          expect((yield* repo.listItems(company, { limit: 10, sourceKind: "option" })).map((c) => c.id)).toEqual([
            ids[1],
            ids[3]
          ])
          expect(
            (yield* repo.listItems(company, { limit: 10, sourceId: items[2]!.sourceId })).map((c) => c.id)
          ).toEqual([ids[2]])
          const atLocation = yield* repo.listItems(company, { limit: 10, locationId: location })
          expect(atLocation.map((c) => c.id)).toEqual([ids[1], ids[3]])
          expect(atLocation[0]!.balances.map((b) => b.locationId)).toEqual([location])
          expect(yield* repo.listItems(company, { limit: 0 })).toEqual([])
        })
      )
    })

    describe("balances", () => {
      it.effect("saveBalance is a compare-and-set on the location revision; quantities round-trip as strings", () =>
        Effect.gen(function* () {
          const repo = yield* InventoryRepository
          const card = item(companyId())
          yield* repo.ensureItem(card)
          const [a, b] = [uuid(), uuid()].sort() as [string, string]
          const first = balance(card, b, { physical: "999999999.999", reserved: "0.001", incoming: "12" })
          yield* repo.saveBalance(first, 0)
          const again = yield* Effect.flip(repo.saveBalance({ ...first, physical: "1" }, 0))
          expect(again).toMatchObject({ _tag: "RevisionConflict", current_revision: 1, expected_revision: 0 })
          const stale = yield* Effect.flip(repo.saveBalance({ ...first, revision: 3 }, 2))
          expect(stale).toMatchObject({ _tag: "RevisionConflict", current_revision: 1, expected_revision: 2 })
          const second = { ...first, physical: "5.5", revision: 2, updatedAt: "2026-01-02T00:00:00.000Z" }
          yield* repo.saveBalance(second, 1)
          const other = balance(card, a, { physical: "3" })
          yield* repo.saveBalance(other, 0)
          const read = Option.getOrThrow(yield* repo.findItem(card.companyId, card.id))
          expect(read.balances).toEqual([other, second])
          expect(
            Option.getOrThrow(yield* repo.findItemBySource(card.companyId, "product", card.sourceId)).balances
          ).toEqual([other, second])
        })
      )

      it.effect("two writers with the same revision: exactly one wins", () =>
        Effect.gen(function* () {
          const repo = yield* InventoryRepository
          const transactor = yield* Transactor
          const card = item(companyId())
          yield* repo.ensureItem(card)
          const location = uuid()
          yield* repo.saveBalance(balance(card, location), 0)
          const results = yield* Effect.all(
            ["1", "2"].map((physical) =>
              Effect.exit(
                transactor.withTransaction(repo.saveBalance(balance(card, location, { physical, revision: 2 }), 1))
              )
            ),
            { concurrency: "unbounded" }
          )
          expect(results.filter(Exit.isSuccess)).toHaveLength(1)
          const stored = Option.getOrThrow(yield* repo.findItem(card.companyId, card.id)).balances[0]!
          expect(stored.revision).toBe(2)
        })
      )

      it.effect("a failed transaction leaves no card, balance or event behind", () =>
        Effect.gen(function* () {
          const repo = yield* InventoryRepository
          const transactor = yield* Transactor
          const card = item(companyId())
          const exit = yield* Effect.exit(
            transactor.withTransaction(
              Effect.gen(function* () {
                yield* repo.ensureItem(card)
                yield* repo.saveBalance(balance(card, uuid()), 0)
                yield* repo.insertEvent(event(card, uuid()))
                return yield* Effect.fail("rollback" as const)
              })
            )
          )
          expect(Exit.isFailure(exit)).toBe(true)
          expect(Option.isNone(yield* repo.findItem(card.companyId, card.id))).toBe(true)
          expect(yield* repo.listItems(card.companyId, { limit: 10 })).toEqual([])
        })
      )
    })

    describe("stock events", () => {
      it.effect("an event id is recorded once per company; the result round-trips", () =>
        Effect.gen(function* () {
          const repo = yield* InventoryRepository
          const card = item(companyId())
          yield* repo.ensureItem(card)
          const eventId = uuid()
          const recorded = event(card, eventId)
          expect(yield* repo.insertEvent(recorded)).toBe(true)
          expect(yield* repo.insertEvent({ ...recorded, fingerprint: "other" })).toBe(false)
          expect(Option.getOrThrow(yield* repo.findEvent(card.companyId, eventId))).toEqual(recorded)
          expect(Option.isNone(yield* repo.findEvent(companyId(), eventId))).toBe(true)
          const foreign = item(companyId())
          yield* repo.ensureItem(foreign)
          expect(yield* repo.insertEvent(event(foreign, eventId))).toBe(true)
        })
      )
    })
  })

const event = (card: StockItem, eventId: string): StockEvent => ({
  companyId: card.companyId,
  eventId,
  connectionId: uuid() as ConnectionId,
  fingerprint: "fp",
  itemId: card.id,
  locationId: uuid(),
  result: {
    outcome: "created",
    record: { id: card.id, balances: [{ physical: "1.5" }] },
    event: { quantity: "1.5", note: "ünïcode ✓" }
  },
  at
})
