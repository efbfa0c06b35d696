import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { CatalogRepository } from "../Catalog/CatalogRepository.js"
import { Mappings } from "../Catalog/Mappings.js"
import type { RecordId } from "../Shared/Ids.js"
import {
  companyId,
  connectionId,
  mapping,
  orderedIds,
  type PortCases,
  record,
  scopeOf,
  uuid
} from "./PersistenceFixtures.js"

/** The CatalogRepository's part of the persistence conformance suite (`runConformance`). */
export const catalogRepositoryCases: PortCases = (it) => {
  describe("CatalogRepository", () => {
    it.effect("stores and reads a record within its company and resource only", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const r = record(company, { data: { name: "Sofa", nested: { a: [1, "x", null] } }, index: { active: true } })
        yield* repo.insert(r)
        expect(Option.getOrThrow(yield* repo.get(company, "products", r.id))).toEqual(r)
        expect(Option.isNone(yield* repo.get(companyId(), "products", r.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(company, "categories", r.id))).toBe(true)
      })
    )

    it.effect("getMapped reads a record with the external id of the connection's mapping, null without one", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const mappings = yield* Mappings
        const company = companyId()
        const connection = connectionId()
        const r = record(company, { data: { name: "Lamp" } })
        yield* repo.insert(r)
        yield* mappings.insert(mapping(scopeOf(company, connection), "lamp-1", r.id))
        expect(Option.getOrThrow(yield* repo.getMapped(company, "products", r.id, connection))).toEqual({
          record: r,
          externalId: "lamp-1"
        })
        expect(Option.getOrThrow(yield* repo.getMapped(company, "products", r.id, connectionId()))).toEqual({
          record: r,
          externalId: null
        })
        expect(Option.isNone(yield* repo.getMapped(companyId(), "products", r.id, connection))).toBe(true)
        expect(Option.isNone(yield* repo.getMapped(company, "categories", r.id, connection))).toBe(true)
      })
    )

    it.effect("listMapped lists as list does, each record with the external id of the connection's mapping", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const mappings = yield* Mappings
        const company = companyId()
        const connection = connectionId()
        const other = connectionId()
        const [a, b, c] = [record(company), record(company), record(company)].sort((x, y) => (x.id < y.id ? -1 : 1))
        yield* Effect.forEach([a!, b!, c!], repo.insert)
        yield* repo.insert(record(companyId()))
        yield* mappings.insert(mapping(scopeOf(company, connection), "a-1", a!.id))
        yield* mappings.insert(mapping(scopeOf(company, other), "b-other", b!.id))
        yield* mappings.insert(mapping(scopeOf(company, connection), "c-1", c!.id))
        const listed = yield* repo.listMapped(company, "products", { limit: 10 }, connection)
        expect(listed).toEqual([
          { record: a, externalId: "a-1" },
          { record: b, externalId: null },
          { record: c, externalId: "c-1" }
        ])
        expect(listed.map((row) => row.record)).toEqual(yield* repo.list(company, "products", { limit: 10 }))
        const page = yield* repo.listMapped(company, "products", { limit: 1, cursor: a!.id }, other)
        expect(page).toEqual([{ record: b, externalId: "b-other" }])
        const byExternal = yield* repo.listMapped(
          company,
          "products",
          { limit: 10, externalId: { connectionId: connection, value: "c-1" } },
          connection
        )
        expect(byExternal).toEqual([{ record: c, externalId: "c-1" }])
        expect(yield* repo.listMapped(company, "categories", { limit: 10 }, connection)).toEqual([])
        // Driven by the category links, and with archived records, the external ids still follow each record.
        const category = uuid() as RecordId
        const live = record(company, { index: { categoryIds: [category] } })
        const archived = record(company, {
          archivedAt: "2026-01-02T00:00:00.000Z",
          index: { categoryIds: [category] }
        })
        yield* Effect.forEach([live, archived], repo.insert)
        yield* mappings.insert(mapping(scopeOf(company, connection), "live", live.id))
        yield* mappings.insert(mapping(scopeOf(company, connection), "archived", archived.id))
        const withArchived = yield* repo.listMapped(
          company,
          "products",
          { limit: 10, categoryId: category, includeArchived: true },
          connection
        )
        expect(withArchived).toEqual(
          [
            { record: live, externalId: "live" },
            { record: archived, externalId: "archived" }
          ].sort((x, y) => (x.record.id < y.record.id ? -1 : 1))
        )
        expect(yield* repo.listMapped(company, "products", { limit: 10, categoryId: category }, connection)).toEqual([
          { record: live, externalId: "live" }
        ])
      })
    )

    it.effect("getMany and existing return only the company's records of the resource", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const a = record(company)
        const b = record(company, { resource: "categories" })
        const foreign = record(companyId())
        yield* Effect.forEach([a, b, foreign], repo.insert)
        const many = yield* repo.getMany(company, "products", [a.id, b.id, foreign.id, a.id])
        expect(many.map((r) => r.id)).toEqual([a.id])
        const existing = yield* repo.existing(company, "products", [a.id, b.id, foreign.id])
        expect(Array.from(existing)).toEqual([a.id])
        expect((yield* repo.existing(company, "products", [])).size).toBe(0)
      })
    )

    it.effect("update is a compare-and-set on the revision", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const r = record(company)
        yield* repo.insert(r)
        const next = {
          ...r,
          revision: 2,
          data: { name: "Chair" },
          index: { ...r.index, active: true },
          updatedAt: "2026-01-02T00:00:00.000Z"
        }
        yield* repo.update(next, 1)
        expect(Option.getOrThrow(yield* repo.get(company, "products", r.id))).toEqual(next)
        const stale = yield* Effect.flip(repo.update({ ...next, revision: 3, data: { name: "Stool" } }, 1))
        expect(stale._tag).toBe("RevisionConflict")
        expect(stale).toMatchObject({ current_revision: 2 })
        expect(Option.getOrThrow(yield* repo.get(company, "products", r.id)).data).toEqual({ name: "Chair" })
      })
    )

    it.effect("a product inserted with repeated categories and components is found by each, once", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const [cat1, cat2, part1, part2] = orderedIds(4)
        const bundle = record(company, {
          index: { categoryIds: [cat1!, cat2!, cat1!], componentIds: [part1!, part2!] }
        })
        const single = record(company, { index: { categoryIds: [cat2!] } })
        yield* repo.insert(bundle)
        yield* repo.insert(single)
        const inCategory = (category: string) =>
          Effect.map(repo.list(company, "products", { limit: 10, categoryId: category as never }), (rows) =>
            rows.map((r) => r.id).sort()
          )
        expect(yield* inCategory(cat1!)).toEqual([bundle.id])
        expect(yield* inCategory(cat2!)).toEqual([bundle.id, single.id].sort())
        for (const part of [part1!, part2!])
          expect(yield* repo.bundlesContaining(company, part as never)).toEqual([bundle.id])
        expect(Option.getOrThrow(yield* repo.get(company, "products", bundle.id))).toEqual(bundle)
      })
    )

    it.effect("an update given the replaced record's index keeps category and component links right", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const [cat1, cat2, part1, part2] = orderedIds(4)
        for (const id of [part1!, part2!]) yield* repo.insert(record(company, { id }))
        const bundle = record(company, { index: { categoryIds: [cat1!], componentIds: [part1!] } })
        yield* repo.insert(bundle)
        const inCategory = (category: string) =>
          Effect.map(repo.list(company, "products", { limit: 10, categoryId: category as never }), (rows) =>
            rows.map((r) => r.id)
          )
        const bundlesOf = (part: string) => repo.bundlesContaining(company, part as never)
        // Same links, listed in another order and repeated: they stay.
        const renamed = { ...bundle, revision: 2, data: { name: "Renamed" } }
        renamed.index = { ...bundle.index, categoryIds: [cat1!, cat1!], componentIds: [part1!] }
        yield* repo.update(renamed, 1, bundle.index)
        expect(yield* inCategory(cat1!)).toEqual([bundle.id])
        expect(yield* bundlesOf(part1!)).toEqual([bundle.id])
        // Changed links: replaced, the old ones gone.
        const moved = {
          ...renamed,
          revision: 3,
          index: { ...renamed.index, categoryIds: [cat2!], componentIds: [part2!] }
        }
        yield* repo.update(moved, 2, renamed.index)
        expect(yield* inCategory(cat1!)).toEqual([])
        expect(yield* inCategory(cat2!)).toEqual([bundle.id])
        expect(yield* bundlesOf(part1!)).toEqual([])
        expect(yield* bundlesOf(part2!)).toEqual([bundle.id])
        // A stale revision changes nothing, links included.
        const stale = { ...moved, revision: 4, index: { ...moved.index, categoryIds: [cat1!] } }
        expect((yield* Effect.flip(repo.update(stale, 2, renamed.index)))._tag).toBe("RevisionConflict")
        expect(yield* inCategory(cat2!)).toEqual([bundle.id])
      })
    )

    it.effect("lists in id order with cursor and limit, leaving archived records out", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const ids = orderedIds(7)
        yield* Effect.forEach(ids, (id, i) =>
          repo.insert(record(company, { id, archivedAt: i === 3 ? "2026-01-03T00:00:00.000Z" : null }))
        )
        yield* repo.insert(record(companyId()))
        const first = yield* repo.list(company, "products", { limit: 4 })
        expect(first.map((r) => r.id)).toEqual([ids[0], ids[1], ids[2], ids[4]])
        const second = yield* repo.list(company, "products", { limit: 4, cursor: ids[4]! })
        expect(second.map((r) => r.id)).toEqual([ids[5], ids[6]])
        const all = yield* repo.list(company, "products", { limit: 100, includeArchived: true })
        expect(all.map((r) => r.id)).toEqual(ids)
        expect(yield* repo.list(company, "categories", { limit: 10 })).toEqual([])
      })
    )

    it.effect("filters lists by category, collection, brand, active and external id", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const mappings = yield* Mappings
        const company = companyId()
        const connection = connectionId()
        const [cat1, cat2, coll, brand] = orderedIds(4)
        const ids = orderedIds(4)
        yield* repo.insert(
          record(company, { id: ids[0]!, index: { categoryIds: [cat1!, cat2!], active: true, collectionId: coll! } })
        )
        yield* repo.insert(
          record(company, { id: ids[1]!, index: { categoryIds: [cat2!], active: false, brandId: brand! } })
        )
        yield* repo.insert(
          record(company, { id: ids[2]!, index: { categoryIds: [cat1!], active: true, brandId: brand! } })
        )
        yield* repo.insert(
          record(company, {
            id: ids[3]!,
            index: { categoryIds: [cat1!], active: true },
            archivedAt: "2026-01-04T00:00:00.000Z"
          })
        )
        const list = (query: Omit<Parameters<typeof repo.list>[2], "limit">) =>
          repo.list(company, "products", { limit: 10, ...query }).pipe(Effect.map((rs) => rs.map((r) => r.id)))
        expect(yield* list({ categoryId: cat1! })).toEqual([ids[0], ids[2]])
        expect(yield* list({ categoryId: cat2! })).toEqual([ids[0], ids[1]])
        expect(yield* list({ categoryId: cat1!, cursor: ids[0]! })).toEqual([ids[2]])
        expect(yield* list({ collectionId: coll! })).toEqual([ids[0]])
        expect(yield* list({ brandId: brand!, active: true })).toEqual([ids[2]])
        expect(yield* list({ active: false })).toEqual([ids[1]])
        yield* mappings.insert(mapping(scopeOf(company, connection), "ext-2", ids[1]!))
        expect(yield* list({ externalId: { connectionId: connection, value: "ext-2" } })).toEqual([ids[1]])
        expect(yield* list({ externalId: { connectionId: connectionId(), value: "ext-2" } })).toEqual([])
        expect(yield* list({ externalId: { connectionId: connection, value: "missing" } })).toEqual([])
      })
    )

    it.effect("insertMany stores new records with their category and component links, as insert does", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const [cat, part, bundle, category] = orderedIds(4)
        yield* repo.insertMany([
          record(company, { id: part!, index: { categoryIds: [cat!, cat!], active: true } }),
          record(company, { id: bundle!, data: { kind: "bundle" }, index: { componentIds: [part!], active: true } }),
          record(company, { id: category!, resource: "categories", data: { name: "Sofas" } })
        ])
        expect((yield* repo.getMany(company, "products", [part!, bundle!])).map((r) => r.id)).toEqual([part, bundle])
        expect(Option.getOrThrow(yield* repo.get(company, "categories", category!)).data).toEqual({ name: "Sofas" })
        expect((yield* repo.list(company, "products", { limit: 10, categoryId: cat! })).map((r) => r.id)).toEqual([
          part
        ])
        expect(yield* repo.bundlesContaining(company, part!)).toEqual([bundle])
        yield* repo.insertMany([])
      })
    )

    it.effect("replacing a product's categories replaces its category links", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const [cat1, cat2] = orderedIds(2)
        const r = record(company, { index: { categoryIds: [cat1!] } })
        yield* repo.insert(r)
        yield* repo.update({ ...r, revision: 2, index: { ...r.index, categoryIds: [cat2!] } }, 1)
        expect(yield* repo.list(company, "products", { limit: 10, categoryId: cat1! })).toEqual([])
        expect((yield* repo.list(company, "products", { limit: 10, categoryId: cat2! })).map((x) => x.id)).toEqual([
          r.id
        ])
      })
    )

    it.effect("finds the live bundles that contain a product, following component changes and archives", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const [chair, table, bundleA, bundleB, bundleC] = orderedIds(5)
        yield* repo.insert(record(company, { id: chair! }))
        yield* repo.insert(record(company, { id: table! }))
        const a = record(company, { id: bundleA!, index: { componentIds: [chair!, table!] } })
        yield* repo.insert(a)
        yield* repo.insert(record(company, { id: bundleB!, index: { componentIds: [chair!] } }))
        yield* repo.insert(
          record(company, { id: bundleC!, index: { componentIds: [chair!] }, archivedAt: "2026-01-02T00:00:00.000Z" })
        )
        expect(yield* repo.bundlesContaining(company, chair!)).toEqual([bundleA, bundleB])
        expect(yield* repo.bundlesContaining(company, table!)).toEqual([bundleA])
        expect(yield* repo.bundlesContaining(companyId(), chair!)).toEqual([])
        // The record's own order of components reads back as written.
        expect(Option.getOrThrow(yield* repo.get(company, "products", bundleA!)).index.componentIds).toEqual([
          chair,
          table
        ])
        yield* repo.update({ ...a, revision: 2, index: { ...a.index, componentIds: [table!] } }, 1)
        expect(yield* repo.bundlesContaining(company, chair!)).toEqual([bundleB])
        yield* repo.update(
          {
            ...a,
            revision: 3,
            index: { ...a.index, componentIds: [table!] },
            archivedAt: "2026-01-03T00:00:00.000Z"
          },
          2
        )
        expect(yield* repo.bundlesContaining(company, table!)).toEqual([])
        yield* repo.lockPricing(company)
      })
    )

    it.effect("lists the children of a parent within its company and resource", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const [type, g1, g2, other] = orderedIds(4)
        yield* repo.insert(record(company, { id: g1!, resource: "customization-groups", index: { parentId: type! } }))
        yield* repo.insert(record(company, { id: g2!, resource: "customization-groups", index: { parentId: type! } }))
        yield* repo.insert(record(company, { id: other!, resource: "customization-groups", index: { parentId: g1! } }))
        expect((yield* repo.children(company, "customization-groups", [type!])).map((r) => r.id)).toEqual([g1, g2])
        expect((yield* repo.children(company, "customization-groups", [g1!, type!])).map((r) => r.id)).toEqual([
          g1,
          g2,
          other
        ])
        expect(yield* repo.children(company, "customization-groups", [])).toEqual([])
        expect(yield* repo.children(company, "customization-options", [type!])).toEqual([])
        expect(yield* repo.children(companyId(), "customization-groups", [type!])).toEqual([])
      })
    )

    it.effect("walks a category's ancestors nearest first, bounded by maxDepth", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const company = companyId()
        const [root, mid, leaf] = orderedIds(3)
        yield* repo.insert(record(company, { id: root!, resource: "categories" }))
        yield* repo.insert(record(company, { id: mid!, resource: "categories", index: { parentId: root! } }))
        yield* repo.insert(record(company, { id: leaf!, resource: "categories", index: { parentId: mid! } }))
        expect(yield* repo.ancestors(company, leaf!, 10)).toEqual([mid, root])
        expect(yield* repo.ancestors(company, leaf!, 1)).toEqual([mid])
        expect(yield* repo.ancestors(company, root!, 10)).toEqual([])
        expect(yield* repo.ancestors(companyId(), leaf!, 10)).toEqual([])
      })
    )
  })
}
