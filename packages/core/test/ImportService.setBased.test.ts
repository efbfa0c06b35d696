import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import { CatalogService } from "../src/Catalog/CatalogService.js"
import { Decode } from "../src/index.js"
import { Mappings } from "../src/Catalog/Mappings.js"
import { ChangeLog, maskOf } from "../src/Changes/ChangeLog.js"
import type { Principal } from "../src/Auth/Principal.js"
import type { ImportBody } from "../src/Imports/Import.js"
import { type Attempt, runPasses } from "../src/internal/Imports/ImportRunner.js"
import { failedAttempt, isRecordFailure } from "../src/internal/Imports/RecordErrors.js"
import type { ResourceName } from "../src/Resources/Resource.js"
import { Transactor } from "../src/Shared/Transactor.js"
import { as, list, upsert } from "./support.js"
import { detail, queued, tenant, TestLayer, testLayerWith, work } from "./importSupport.js"

type Sent = ImportBody["records"][number]

/**
 * Import records over a few external ids per resource, so that a batch creates, updates (with and
 * without the right revision), writes one record twice, refers to records of the same batch, of an
 * earlier one and to none, makes category cycles, and carries invalid bodies.
 */
const externalId = (prefix: string) => fc.integer({ min: 0, max: 5 }).map((n) => `${prefix}${n}`)
const reference = (prefix: string) => externalId(prefix).map((id) => ({ external_id: id }))
const revision = fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined })
const name = fc.constantFrom("A", "B", "C")

const categoryRecord = fc
  .record({
    external_id: externalId("c"),
    name: fc.oneof(name, fc.constant(5 as unknown as string)),
    parent_id: fc.option(reference("c"), { nil: undefined }),
    expected_revision: revision
  })
  .map((body): Sent => ({ resource: "categories", body: JSON.parse(JSON.stringify(body)) }))

const productRecord = fc
  .record({
    external_id: externalId("p"),
    name,
    category_ids: fc.array(reference("c"), { maxLength: 2 }),
    expected_revision: revision
  })
  .map((body): Sent => ({ resource: "products", body: JSON.parse(JSON.stringify(body)) }))

const importBody = fc.array(fc.oneof(categoryRecord, productRecord), { minLength: 1, maxLength: 60 })

/** The same records one by one, each in its own savepoint, over passes: how imports applied them before. */
const oneByOne = (records: ReadonlyArray<Sent>) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogService
    const transactor = yield* Transactor
    const planned = records.map((record, index) => ({ index, resource: record.resource, body: record.body }))
    const { results } = yield* transactor.withTransaction(
      runPasses(planned, (record) =>
        Effect.fromResult(Decode.decodeUpsert(record.resource, record.body)).pipe(
          Effect.flatMap((decoded) => transactor.withTransaction(catalog.upsert(record.resource, decoded))),
          Effect.map((result): Attempt => ({ _tag: "Applied", outcome: result.outcome, recordId: result.record.id })),
          Effect.catch((error) =>
            isRecordFailure(error) ? Effect.succeed(failedAttempt(record.index, error)) : Effect.die(error)
          )
        )
      )
    )
    return records.map((_, index) => {
      const result = results.get(index)!
      return result._tag === "Applied"
        ? [index, "applied", result.outcome, null]
        : [index, "failed", null, result.error.code]
    })
  })

/** A tenant's catalog and change feed by external ids, so that two tenants compare whatever their record ids. */
const catalogOf = (who: Principal) =>
  Effect.gen(function* () {
    const changeLog = yield* ChangeLog
    const categories = (yield* list("categories").pipe(as(who))).records
    const products = (yield* list("products").pipe(as(who))).records
    const externalOf = new Map(categories.map((c) => [c.id as string, c.external_id as string]))
    const changes = yield* changeLog.read({
      companyId: who.company.id,
      connectionId: who.connectionId,
      after: 0,
      upTo: yield* changeLog.head(who.company.id),
      visibleMask: maskOf(["catalog", "prices", "costs"]),
      limit: 10_000
    })
    const byExternalId = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>) =>
      String(a[0]).localeCompare(String(b[0]))
    return {
      categories: categories
        .map((c) => [
          c.external_id,
          c.revision,
          c.name,
          c.parent_id === null ? null : externalOf.get(c.parent_id as string)
        ])
        .sort(byExternalId),
      products: products
        .map((p) => [
          p.external_id,
          p.revision,
          p.name,
          (p.category_ids as ReadonlyArray<string>).map((id) => externalOf.get(id))
        ])
        .sort(byExternalId),
      changes: changes.map((c) => [c.resource, c.externalId, c.operation, c.revision])
    }
  })

const seed = [
  { resource: "categories", body: { external_id: "c0", name: "Seed" } },
  { resource: "categories", body: { external_id: "c1", name: "Seed", parent_id: { external_id: "c0" } } },
  { resource: "products", body: { external_id: "p0", name: "Seed", category_ids: [{ external_id: "c1" }] } }
] as const

const seeded = Effect.gen(function* () {
  const who = yield* tenant()
  for (const record of seed) yield* upsert(record.resource as ResourceName, record.body).pipe(as(who))
  return who
})

/**
 * Hides some external ids of one resource from `findMany` (the write-behind's prefetch), as if another
 * writer had mapped them after the batch read its mappings: the batch's flush then meets the mapping.
 */
const MappingsMissingFromPrefetch = (resource: string, hidden: ReadonlySet<string>) =>
  Layer.effect(
    Mappings,
    Effect.map(Mappings, (inner) =>
      Mappings.of({
        ...inner,
        findMany: (scope, externalIds) =>
          Effect.map(
            inner.findMany(scope, externalIds),
            (found) => new Map(Array.from(found).filter(([id]) => !(scope.resource === resource && hidden.has(id))))
          )
      })
    )
  )

layer(TestLayer)("ImportService set-based batches", (it) => {
  it.effect(
    "a job's set-based batches give what applying the same records one by one gives: results, catalog, change feed",
    () =>
      Effect.gen(function* () {
        for (const records of fc.sample(importBody, 60)) {
          const viaJob = yield* seeded
          const viaOneByOne = yield* seeded
          const job = yield* queued({ records }).pipe(as(viaJob))
          yield* work
          const { report } = yield* detail(job.id).pipe(as(viaJob))
          const jobResults = report!.records.map((r) => [r.index, r.status, r.outcome, r.error?.code ?? null])
          const expected = yield* oneByOne(records).pipe(as(viaOneByOne))
          const context = JSON.stringify(records)
          expect(jobResults, context).toEqual(expected)
          expect(yield* catalogOf(viaJob), context).toEqual(yield* catalogOf(viaOneByOne))
        }
      }),
    60_000
  )
})

layer(testLayerWith(MappingsMissingFromPrefetch("products", new Set(["p0"]))))(
  "ImportService set-based batches, abandoned",
  (it) => {
    it.effect(
      "a mapping the batch did not see when it read them rolls the batch back and applies it record by record",
      () =>
        Effect.gen(function* () {
          const who = yield* seeded
          const job = yield* queued({
            records: [
              { resource: "products", body: { external_id: "p1", name: "New", category_ids: [{ external_id: "c0" }] } },
              // p0 looks new to the batch: its create is buffered, and its mapping conflicts when flushed.
              {
                resource: "products",
                body: { external_id: "p0", name: "Again", category_ids: [{ external_id: "c0" }] }
              }
            ]
          }).pipe(as(who))
          yield* work
          const { job: done, report } = yield* detail(job.id).pipe(as(who))
          expect(done).toMatchObject({ state: "completed", counts: { created: 1, failed: 1 } })
          // Record by record, p0 is found mapped: an update without expected_revision is a conflict.
          expect(report!.records.map((r) => [r.external_id, r.outcome, r.error?.code ?? null])).toEqual([
            ["p1", "created", null],
            ["p0", null, "revision_conflict"]
          ])
          const catalog = yield* catalogOf(who)
          expect(catalog.products).toEqual([
            ["p0", 1, "Seed", ["c1"]],
            ["p1", 1, "New", ["c0"]]
          ])
          expect(catalog.changes.filter(([resource]) => resource === "products")).toEqual([
            ["products", "p0", "created", 1],
            ["products", "p1", "created", 1]
          ])
        })
    )
  }
)
