import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Mappings } from "../Catalog/Mappings.js"
import type { RecordId } from "../Shared/Ids.js"
import { Transactor } from "../Shared/Transactor.js"
import { companyId, connectionId, mapping, orderedIds, type PortCases, scopeOf, uuid } from "./PersistenceFixtures.js"

/** The Mappings' part of the persistence conformance suite (`runConformance`). */
export const mappingsCases: PortCases = (it) => {
  describe("Mappings", () => {
    it.effect("resolves external ids within company + connection + resource", () =>
      Effect.gen(function* () {
        const mappings = yield* Mappings
        const company = companyId()
        const connection = connectionId()
        const scope = scopeOf(company, connection)
        const [a, b] = orderedIds(2)
        yield* mappings.insert(mapping(scope, "A", a!))
        yield* mappings.insert(mapping(scope, "B", b!))
        expect(yield* mappings.find(scope, "A")).toEqual(Option.some(a))
        expect(Option.isNone(yield* mappings.find({ ...scope, connectionId: connectionId() }, "A"))).toBe(true)
        expect(Option.isNone(yield* mappings.find({ ...scope, companyId: companyId() }, "A"))).toBe(true)
        expect(Option.isNone(yield* mappings.find({ ...scope, resource: "categories" }, "A"))).toBe(true)
        const many = yield* mappings.findMany(scope, ["A", "B", "C"])
        expect(Object.fromEntries(many)).toEqual({ A: a, B: b })
        const back = yield* mappings.externalIdsOf(scope, [a!, b!, uuid() as RecordId])
        expect(Object.fromEntries(back)).toEqual({ [a!]: "A", [b!]: "B" })
        expect((yield* mappings.findMany(scope, [])).size).toBe(0)
      })
    )

    it.effect("findAcross answers each lookup as findMany does, in their order", () =>
      Effect.gen(function* () {
        const mappings = yield* Mappings
        const company = companyId()
        const connection = connectionId()
        const products = scopeOf(company, connection)
        const categories = { ...products, resource: "categories" as const }
        const [a, b, c] = orderedIds(3)
        yield* mappings.insert(mapping(products, "A", a!))
        yield* mappings.insert(mapping(products, "B", b!))
        yield* mappings.insert(mapping(categories, "A", c!))
        const lookups = [
          { scope: categories, externalIds: ["A", "Z"] },
          { scope: products, externalIds: [] },
          { scope: products, externalIds: ["B", "A", "B", "Z"] },
          { scope: { ...products, connectionId: connectionId() }, externalIds: ["A"] }
        ]
        const expected = yield* Effect.forEach(lookups, (lookup) => mappings.findMany(lookup.scope, lookup.externalIds))
        expect(expected.map((found) => Object.fromEntries(found))).toEqual([{ A: c }, {}, { A: a, B: b }, {}])
        expect(yield* mappings.findAcross(lookups)).toEqual(expected)
        expect(yield* mappings.findAcross([])).toEqual([])
      })
    )

    it.effect("refuses a second mapping of an external id or of a record", () =>
      Effect.gen(function* () {
        const mappings = yield* Mappings
        const scope = scopeOf(companyId(), connectionId())
        const [a, b] = orderedIds(2)
        yield* mappings.insert(mapping(scope, "A", a!))
        const taken = yield* Effect.flip(mappings.insert(mapping(scope, "A", b!)))
        expect(taken).toMatchObject({ _tag: "MappingConflict", reason: "external_id_taken" })
        const twice = yield* Effect.flip(mappings.insert(mapping(scope, "A2", a!)))
        expect(twice).toMatchObject({ _tag: "MappingConflict", reason: "record_already_mapped" })
        yield* mappings.insert(mapping({ ...scope, connectionId: connectionId() }, "A", b!))
      })
    )
    it.effect("insertMany maps many at once; one already taken fails it, and its transaction rolls back", () =>
      Effect.gen(function* () {
        const mappings = yield* Mappings
        const transactor = yield* Transactor
        const scope = scopeOf(companyId(), connectionId())
        const [a, b, c, d] = orderedIds(4)
        yield* mappings.insertMany([mapping(scope, "A", a!), mapping(scope, "B", b!)])
        expect(Object.fromEntries(yield* mappings.findMany(scope, ["A", "B"]))).toEqual({ A: a, B: b })
        const taken = yield* Effect.flip(
          transactor.withTransaction(mappings.insertMany([mapping(scope, "C", c!), mapping(scope, "A", d!)]))
        )
        expect(taken).toMatchObject({ _tag: "MappingConflict" })
        expect(Option.isNone(yield* mappings.find(scope, "C"))).toBe(true)
        expect(yield* mappings.find(scope, "A")).toEqual(Option.some(a))
      })
    )
  })
}
