import { CatalogRepository, CommitVersion, type Ids, type StoredRecord } from "@catalog-sync/core"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { KeptReads } from "../src/index.js"

const company = "0190a000-0000-7000-8000-000000000001" as Ids.CompanyId
const connection = "0190a000-0000-7000-8000-000000000002" as Ids.ConnectionId

const record = (id: string, data: StoredRecord.StoredRecord["data"]): StoredRecord.StoredRecord => ({
  id: id as Ids.RecordId,
  companyId: company,
  resource: "products",
  revision: 1,
  data,
  index: { active: null, collectionId: null, brandId: null, parentId: null, categoryIds: [], componentIds: [] },
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  archivedAt: null
})

/** The decorated repository over one that answers `records` by id and counts its reads; a version the test moves. */
const world = (records: ReadonlyArray<StoredRecord.StoredRecord>) =>
  Effect.gen(function* () {
    const reads = { count: 0 }
    const version = { current: Option.some("1") as Option.Option<string> }
    const inner = Layer.succeed(CatalogRepository.CatalogRepository, {
      getMapped: (_company: Ids.CompanyId, _resource: string, id: Ids.RecordId) =>
        Effect.sync(() => {
          reads.count++
          return Option.map(Option.fromUndefinedOr(records.find((r) => r.id === id)), (found) => ({
            record: found,
            externalId: null
          }))
        }),
      listMapped: (_company: Ids.CompanyId, _resource: string, query: CatalogRepository.ListQuery) =>
        Effect.sync(() => {
          reads.count++
          return records
            .filter((r) => query.cursor === undefined || r.id > query.cursor)
            .slice(0, query.limit)
            .map((found) => ({ record: found, externalId: null }))
        })
    } as unknown as Context.Service.Shape<typeof CatalogRepository.CatalogRepository>)
    const versions = Layer.succeed(CommitVersion.CommitVersion, { current: Effect.sync(() => version.current) })
    const context = yield* Layer.build(KeptReads.catalogLayer.pipe(Layer.provide(Layer.merge(inner, versions))))
    const repository = Context.get(context, CatalogRepository.CatalogRepository)
    const get = (id: string) => repository.getMapped(company, "products", id as Ids.RecordId, connection)
    const list = (query: CatalogRepository.ListQuery, connectionId: Ids.ConnectionId = connection) =>
      repository.listMapped(company, "products", query, connectionId)
    return { reads, version, get, list }
  })

describe("KeptReads.catalogLayer", () => {
  it.effect("keeps a record read by id while the version stays; reads again when it moves or is unknown", () =>
    Effect.gen(function* () {
      const sofa = record("0190a000-0000-7000-8000-000000000003", { name: "Sofa" })
      const { get, reads, version } = yield* world([sofa])
      expect(yield* get(sofa.id)).toEqual(Option.some({ record: sofa, externalId: null }))
      expect(yield* get(sofa.id)).toEqual(Option.some({ record: sofa, externalId: null }))
      expect(reads.count).toBe(1)
      version.current = Option.some("2")
      yield* get(sofa.id)
      expect(reads.count).toBe(2)
      version.current = Option.none()
      yield* get(sofa.id)
      yield* get(sofa.id)
      expect(reads.count).toBe(4)
    })
  )

  it.effect("never keeps a missing record, nor one of over ~32 KB of text", () =>
    Effect.gen(function* () {
      const large = record("0190a000-0000-7000-8000-000000000004", { description: "x".repeat(40_000) })
      const small = record("0190a000-0000-7000-8000-000000000005", { description: "x".repeat(20_000) })
      const { get, reads } = yield* world([large, small])
      yield* get("0190a000-0000-7000-8000-000000000006")
      yield* get("0190a000-0000-7000-8000-000000000006")
      expect(reads.count).toBe(2)
      yield* get(large.id)
      yield* get(large.id)
      expect(reads.count).toBe(4)
      yield* get(small.id)
      yield* get(small.id)
      expect(reads.count).toBe(5)
    })
  )

  it.effect(
    "keeps a list page while the version stays, each query and connection its own; reads again when it moves",
    () =>
      Effect.gen(function* () {
        const sofa = record("0190a000-0000-7000-8000-000000000003", { name: "Sofa" })
        const chair = record("0190a000-0000-7000-8000-000000000004", { name: "Chair" })
        const { list, reads, version } = yield* world([sofa, chair])
        const page = yield* list({ limit: 2 })
        expect(page.map((row) => row.record)).toEqual([sofa, chair])
        expect(yield* list({ limit: 2 })).toBe(page)
        expect(reads.count).toBe(1)
        expect((yield* list({ limit: 2, cursor: sofa.id })).map((row) => row.record)).toEqual([chair])
        yield* list({ limit: 1 })
        yield* list({ limit: 2, externalId: { connectionId: connection, value: "a" } })
        yield* list({ limit: 2, externalId: { connectionId: connection, value: "b" } })
        yield* list({ limit: 2 }, "0190a000-0000-7000-8000-000000000009" as Ids.ConnectionId)
        expect(reads.count).toBe(6)
        version.current = Option.some("2")
        yield* list({ limit: 2 })
        expect(reads.count).toBe(7)
        version.current = Option.none()
        yield* list({ limit: 2 })
        yield* list({ limit: 2 })
        expect(reads.count).toBe(9)
      })
  )
})
