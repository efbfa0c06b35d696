import { describe, expect } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Option } from "effect"
import { Mappings } from "../Catalog/Mappings.js"
import { type ChangeEntry, ChangeLog, maskOf } from "../Changes/ChangeLog.js"
import type { CompanyId, RecordId } from "../Shared/Ids.js"
import { Transactor } from "../Shared/Transactor.js"
import { companyId, connectionId, mapping, type PortCases, scopeOf, uuid } from "./PersistenceFixtures.js"

/** The ChangeLog's part of the persistence conformance suite (`runConformance`). */
export const changeLogCases: PortCases = (it) => {
  describe("ChangeLog", () => {
    const entry = (c: CompanyId, overrides: Partial<ChangeEntry> = {}): ChangeEntry => ({
      companyId: c,
      resource: "products",
      recordId: uuid() as RecordId,
      revision: 1,
      operation: "created",
      originConnectionId: connectionId(),
      at: "2026-01-01T00:00:00.000Z",
      ...overrides
    })

    it.effect("appendMany appends in the order given, after the changes before it", () =>
      Effect.gen(function* () {
        const changes = yield* ChangeLog
        const company = companyId()
        const reader = connectionId()
        const first = entry(company)
        const many = [entry(company, { resource: "categories" }), entry(company), entry(company, { revision: 2 })]
        yield* changes.append(first)
        yield* changes.appendMany(many)
        yield* changes.appendMany([])
        const head = yield* changes.head(company)
        const read = yield* changes.read({
          companyId: company,
          connectionId: reader,
          after: 0,
          upTo: head,
          visibleMask: maskOf(["catalog"]),
          limit: 10
        })
        expect(read.map((c) => [c.recordId, c.resource, c.revision])).toEqual(
          [first, ...many].map((e) => [e.recordId, e.resource, e.revision])
        )
      })
    )

    it.effect("the head moves with each appended change of the company only", () =>
      Effect.gen(function* () {
        const changes = yield* ChangeLog
        const company = companyId()
        const other = companyId()
        expect(yield* changes.head(company)).toBe(0)
        yield* changes.append(entry(company))
        const first = yield* changes.head(company)
        expect(first).toBeGreaterThan(0)
        yield* changes.append(entry(other))
        expect(yield* changes.head(company)).toBe(first)
        yield* changes.append(entry(company))
        expect(yield* changes.head(company)).toBeGreaterThan(first)
      })
    )

    it.effect("each company numbers its changes 1, 2, 3...: another company's appends move none of its positions", () =>
      Effect.gen(function* () {
        const changes = yield* ChangeLog
        const [a, b] = [companyId(), companyId()]
        const positions = (company: CompanyId) =>
          Effect.flatMap(changes.head(company), (upTo) =>
            changes.read({
              companyId: company,
              connectionId: connectionId(),
              after: 0,
              upTo,
              visibleMask: maskOf(["catalog"]),
              limit: 10
            })
          ).pipe(Effect.map((read) => read.map((c) => c.position)))
        yield* changes.append(entry(a))
        const cursor = yield* changes.head(a)
        yield* changes.append(entry(b))
        yield* changes.appendMany([entry(b), entry(b)])
        expect(yield* changes.head(a)).toBe(cursor)
        yield* changes.appendMany([entry(a), entry(b), entry(a)])
        expect(yield* positions(a)).toEqual([1, 2, 3])
        expect(yield* positions(b)).toEqual([1, 2, 3, 4])
        expect([yield* changes.head(a), yield* changes.head(b)]).toEqual([3, 4])
        // None of these was numbered by the former global sequence.
        expect(yield* changes.fromGlobalPosition(a, 1_000_000)).toBe(0)
      })
    )

    it.effect("a rolled-back append gives its position back: the next one takes it, with no gap", () =>
      Effect.gen(function* () {
        const changes = yield* ChangeLog
        const transactor = yield* Transactor
        const company = companyId()
        yield* changes.append(entry(company))
        const failed = yield* Effect.exit(
          transactor.withTransaction(
            Effect.andThen(changes.appendMany([entry(company), entry(company)]), Effect.fail("rolled back"))
          )
        )
        expect(Exit.isFailure(failed)).toBe(true)
        expect(yield* changes.head(company)).toBe(1)
        yield* changes.append(entry(company, { revision: 2 }))
        const read = yield* changes.read({
          companyId: company,
          connectionId: connectionId(),
          after: 0,
          upTo: 2,
          visibleMask: maskOf(["catalog"]),
          limit: 10
        })
        expect(read.map((c) => [c.position, c.revision])).toEqual([
          [1, 1],
          [2, 2]
        ])
      })
    )

    it.effect(
      "outside a transaction the head counts committed changes only: a cursor handed out is never taken back",
      () =>
        Effect.gen(function* () {
          const changes = yield* ChangeLog
          const transactor = yield* Transactor
          const company = companyId()
          yield* changes.append(entry(company))
          const appended = yield* Deferred.make<number>()
          const release = yield* Deferred.make<void>()
          const open = yield* Effect.forkChild(
            transactor.withTransaction(
              Effect.gen(function* () {
                yield* changes.appendMany([entry(company), entry(company)])
                yield* Deferred.succeed(appended, yield* changes.head(company))
                yield* Deferred.await(release)
                return yield* Effect.fail("rolled back")
              })
            )
          )
          expect(yield* Deferred.await(appended)).toBe(3)
          // Another reader meanwhile: the feed bounds a page by this, and refuses a cursor past it.
          const during = yield* changes.head(company)
          yield* Deferred.succeed(release, undefined)
          expect(Exit.isFailure(yield* Fiber.await(open))).toBe(true)
          expect([during, yield* changes.head(company)]).toEqual([1, 1])
        })
    )

    it.effect(
      "in a transaction: a read sees the transaction's appends, in a savepoint too; a rolled-back savepoint's appends are gone, a released one's kept in order",
      () =>
        Effect.gen(function* () {
          const changes = yield* ChangeLog
          const transactor = yield* Transactor
          const company = companyId()
          const reader = connectionId()
          const readAll = changes.read({
            companyId: company,
            connectionId: reader,
            after: 0,
            upTo: 100,
            visibleMask: maskOf(["catalog"]),
            limit: 100
          })
          const inside = yield* transactor.withTransaction(
            Effect.gen(function* () {
              yield* changes.append(entry(company, { revision: 1 }))
              // A savepoint reads the enclosing transaction's appends; rolling it back drops only its own.
              const dropped = yield* Effect.exit(
                transactor.withTransaction(
                  Effect.gen(function* () {
                    const before = yield* changes.head(company)
                    yield* changes.append(entry(company, { revision: 99 }))
                    const after = yield* changes.head(company)
                    return yield* Effect.fail({ rolledBack: [before, after] })
                  })
                )
              )
              // The error itself: a traced transaction annotates its failure's cause with where it ran.
              expect(Exit.isFailure(dropped) ? Cause.findErrorOption(dropped.cause) : Option.none()).toEqual(
                Option.some({ rolledBack: [1, 2] })
              )
              yield* transactor.withTransaction(changes.appendMany([entry(company, { revision: 2 })]))
              const head = yield* changes.head(company)
              const read = yield* readAll
              yield* changes.append(entry(company, { revision: 3 }))
              return { head, revisions: read.map((c) => c.revision) }
            })
          )
          expect(inside).toEqual({ head: 2, revisions: [1, 2] })
          const committed = yield* readAll
          expect(committed.map((c) => [c.position, c.revision])).toEqual([
            [1, 1],
            [2, 2],
            [3, 3]
          ])
        })
    )

    it.effect(
      "reads the company's changes in position order, filtered by parts and resources, with the reader's external ids",
      () =>
        Effect.gen(function* () {
          const changes = yield* ChangeLog
          const mappings = yield* Mappings
          const company = companyId()
          const reader = connectionId()
          const mapped = uuid() as RecordId
          yield* mappings.insert(mapping(scopeOf(company, reader), "ext-1", mapped))
          yield* changes.append(entry(company, { recordId: mapped }))
          yield* changes.append(entry(companyId()))
          yield* changes.append(
            entry(company, { parts: ["prices"], operation: "updated", revision: 2, recordId: mapped })
          )
          yield* changes.append(entry(company, { resource: "categories" }))
          yield* changes.append(entry(company, { resource: "inventory" }))
          const head = yield* changes.head(company)
          const read = (visibleMask: number, resources?: ReadonlyArray<string>, after = 0, limit = 10) =>
            changes.read({
              companyId: company,
              connectionId: reader,
              after,
              upTo: head,
              visibleMask,
              resources,
              limit
            })
          const all = yield* read(maskOf(["catalog", "prices", "stock"]))
          expect(all.map((c) => [c.resource, c.revision])).toEqual([
            ["products", 1],
            ["products", 2],
            ["categories", 1],
            ["inventory", 1]
          ])
          expect(all.map((c) => c.position)).toEqual([...all.map((c) => c.position)].sort((a, b) => a - b))
          expect(all[0]).toMatchObject({ recordId: mapped, externalId: "ext-1", operation: "created" })
          expect(all[2]!.externalId).toBeNull()
          expect((yield* read(maskOf(["catalog"]))).map((c) => c.resource)).toEqual(["products", "categories"])
          expect((yield* read(maskOf(["prices"]))).map((c) => c.revision)).toEqual([2])
          expect((yield* read(maskOf(["stock"]))).map((c) => c.resource)).toEqual(["inventory"])
          expect((yield* read(maskOf(["catalog", "prices"]), ["categories"])).map((c) => c.resource)).toEqual([
            "categories"
          ])
          expect(
            (yield* read(maskOf(["catalog", "prices", "stock"]), undefined, all[1]!.position)).map((c) => c.position)
          ).toEqual(all.slice(2).map((c) => c.position))
          expect(yield* read(maskOf(["catalog", "prices", "stock"]), undefined, 0, 2)).toHaveLength(2)
          const bounded = yield* changes.read({
            companyId: company,
            connectionId: reader,
            after: 0,
            upTo: all[1]!.position,
            visibleMask: maskOf(["catalog", "prices"]),
            limit: 10
          })
          expect(bounded.map((c) => c.position)).toEqual([all[0]!.position, all[1]!.position])
        })
    )
  })
}
