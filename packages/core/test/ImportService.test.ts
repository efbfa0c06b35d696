import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import type { ImportBody } from "../src/Imports/Import.js"
import { ImportService, recordsPerTransaction } from "../src/Imports/ImportService.js"
import { Accounts } from "../src/Auth/Accounts.js"
import { JobService } from "../src/Jobs/JobService.js"
import { JobStore } from "../src/Jobs/JobStore.js"
import { InMemory } from "../src/testing.js"
import { anotherKey, as, list, upsert, uuid } from "./support.js"
import { detail, queued, submit, tenant, TestLayer, work } from "./importSupport.js"

layer(TestLayer)("ImportService", (it) => {
  describe("passes", () => {
    it.effect(
      "a product before its category, a child category before its parent and a bundle before its component resolve over passes",
      () =>
        Effect.gen(function* () {
          const who = yield* tenant()
          const job = yield* queued({
            records: [
              {
                resource: "products",
                body: {
                  external_id: "bundle",
                  name: "Set",
                  kind: "bundle",
                  category_ids: [{ external_id: "child" }],
                  components: [{ product_id: { external_id: "single" }, quantity: 2 }]
                }
              },
              {
                resource: "categories",
                body: { external_id: "child", name: "Child", parent_id: { external_id: "parent" } }
              },
              {
                resource: "products",
                body: { external_id: "single", name: "Chair", category_ids: [{ external_id: "parent" }] }
              },
              { resource: "categories", body: { external_id: "parent", name: "Parent" } },
              {
                resource: "customization-options",
                body: { external_id: "o1", name: "Red", group_id: { external_id: "g1" } }
              },
              {
                resource: "customization-groups",
                body: { external_id: "g1", name: "Book", type_id: { external_id: "t1" } }
              },
              { resource: "customization-types", body: { external_id: "t1", name: "Fabric" } }
            ]
          }).pipe(as(who))
          expect(job).toMatchObject({
            state: "queued",
            kind: "import",
            run: 1,
            attempts: 0,
            counts: { total: 7, pending: 7 }
          })
          yield* work
          const { job: done, report } = yield* detail(job.id).pipe(as(who))
          expect(done).toMatchObject({
            state: "completed",
            attempts: 1,
            counts: { total: 7, created: 7, failed: 0, pending: 0 }
          })
          expect(report!.records.map((r) => [r.index, r.status, r.outcome])).toEqual(
            Array.from({ length: 7 }, (_, i) => [i, "applied", "created"])
          )
          const parent = (yield* list("categories", { externalId: "parent" }).pipe(as(who))).records[0]!
          const child = (yield* list("categories", { externalId: "child" }).pipe(as(who))).records[0]!
          expect(child.parent_id).toBe(parent.id)
        })
    )

    it.effect(
      "partial failure: valid records apply, each failure is reported with its code and paths; the job is completed (spec 3)",
      () =>
        Effect.gen(function* () {
          const who = yield* tenant()
          const job = yield* queued({
            records: [
              { resource: "categories", body: { external_id: "ok", name: "Fine" } },
              {
                resource: "products",
                body: { external_id: "p", name: "Lost", category_ids: [{ external_id: "nowhere" }] }
              },
              { resource: "brands", body: { external_id: "b", name: "x".repeat(201), extra: 1 } },
              { resource: "collections", body: { external_id: "c", name: "Coll", expected_revision: 3 } }
            ]
          }).pipe(as(who))
          yield* work
          const { job: done, report } = yield* detail(job.id).pipe(as(who))
          expect(done).toMatchObject({ state: "completed", failure: null, counts: { created: 1, failed: 3 } })
          const [ok, lost, invalid, conflict] = report!.records
          expect(ok).toMatchObject({ status: "applied", outcome: "created", external_id: "ok" })
          expect(lost).toMatchObject({
            status: "failed",
            error: { code: "unresolved_reference", details: [{ path: "$.records[1].body.category_ids[0]" }] }
          })
          expect(invalid!.error!.code).toBe("validation_failed")
          expect((invalid!.error!.details as Array<{ path: string }>).map((d) => d.path).sort()).toEqual([
            "$.records[2].body.extra",
            "$.records[2].body.name"
          ])
          expect(conflict).toMatchObject({
            error: { code: "revision_conflict", details: { current_revision: 0, expected_revision: 3 } }
          })
        })
    )
    it.effect(
      "a record whose external_id is not one (U+0000, a lone surrogate, too long) fails at its path and is reported with external_id null",
      () =>
        Effect.gen(function* () {
          const who = yield* tenant()
          const invalid = ["a\u0000b", "x\ud800", "e".repeat(201)]
          const records = invalid.map((external_id) => ({
            resource: "categories" as const,
            body: { external_id, name: "Category" }
          }))
          const job = yield* queued({ records }).pipe(as(who))
          yield* work
          const { report } = yield* detail(job.id).pipe(as(who))
          const dry = yield* submit({ dry_run: true, records }).pipe(as(who))
          if (dry._tag !== "DryRun") throw new Error("expected a report")
          for (const results of [report!.records, dry.report.records]) {
            expect(
              results.map((r) => [
                r.external_id,
                r.status,
                r.error?.code,
                (r.error?.details as ReadonlyArray<{ readonly path: string }> | undefined)?.[0]?.path
              ])
            ).toEqual(invalid.map((_, i) => [null, "failed", "validation_failed", `$.records[${i}].body.external_id`]))
          }
        })
    )
  })

  describe("dry run", () => {
    it.effect("reports like a real run and leaves no record, mapping or change behind", () =>
      Effect.gen(function* () {
        const who = yield* tenant()
        const inspect = yield* InMemory.Inspect
        const before = inspect.changes().length
        yield* upsert("categories", { external_id: "existing", name: "Old" }).pipe(as(who))
        const submitted = yield* submit({
          dry_run: true,
          records: [
            { resource: "products", body: { external_id: "p", name: "Sofa", category_ids: [{ external_id: "new" }] } },
            { resource: "categories", body: { external_id: "new", name: "New" } },
            { resource: "categories", body: { external_id: "existing", name: "Renamed", expected_revision: 1 } },
            { resource: "categories", body: { external_id: "bad", name: "" } }
          ]
        }).pipe(as(who))
        if (submitted._tag !== "DryRun") throw new Error("expected a report")
        expect(submitted.report).toMatchObject({
          dry_run: true,
          total: 4,
          created: 2,
          updated: 1,
          failed: 1,
          pending: 0,
          rerun: []
        })
        expect(submitted.report.records[0]).toMatchObject({ status: "applied", outcome: "created", id: null })
        expect(submitted.report.records[2]!.id).not.toBeNull()
        expect(inspect.changes().length).toBe(before + 1)
        expect((yield* list("categories").pipe(as(who))).records.map((r) => r.name)).toEqual(["Old"])
        expect((yield* list("products").pipe(as(who))).records).toEqual([])
        // The mapping of "new" was rolled back too: creating it again is a create.
        const again = yield* upsert("categories", { external_id: "new", name: "New" }).pipe(as(who))
        expect(again.outcome).toBe("created")
        expect(
          (yield* Effect.flatMap(JobService, (s) => s.list(undefined, { limit: 10 })).pipe(as(who))).records
        ).toEqual([])
      })
    )
  })

  describe("access", () => {
    it.effect("write scopes of every record are checked up front", () =>
      Effect.gen(function* () {
        const who = yield* tenant(["catalog:write"])
        const error = yield* Effect.flip(
          submit({
            records: [
              { resource: "categories", body: { external_id: "a", name: "A" } },
              { resource: "products", body: { external_id: "p", mode: "prices", price: "10" } }
            ]
          }).pipe(as(who))
        )
        expect(error).toMatchObject({ _tag: "ScopeDenied", required: ["prices:write"] })
      })
    )

    it.effect("jobs are visible to their connection only; the 21st pending job is refused", () =>
      Effect.gen(function* () {
        const who = yield* tenant()
        const other = { ...who, connectionId: uuid() as never }
        const body: ImportBody = { records: [{ resource: "categories", body: { external_id: "a", name: "A" } }] }
        const first = yield* queued(body).pipe(as(who))
        for (let i = 1; i < 20; i++) yield* queued(body).pipe(as(who))
        const refused = yield* Effect.flip(submit(body).pipe(as(who)))
        expect(refused).toMatchObject({ _tag: "JobLimitReached", code: "job_limit_reached", retry_after: 5 })
        expect(yield* Effect.flip(detail(first.id).pipe(as(other)))).toMatchObject({ _tag: "RecordNotFound" })
        const page = yield* Effect.flatMap(JobService, (s) => s.list("import", { limit: 15 })).pipe(as(who))
        expect(page.records).toHaveLength(15)
        expect(page.has_more).toBe(true)
        expect(
          (yield* Effect.flatMap(JobService, (s) => s.list(undefined, { limit: 15 })).pipe(as(other))).records
        ).toEqual([])
        yield* work
        expect((yield* detail(first.id).pipe(as(who))).job.state).toBe("completed")
      })
    )
  })

  describe("reports respect read scopes", () => {
    it.effect(
      "messages about price and cost fields carry no values for a reader without prices:read or costs:read",
      () =>
        Effect.gen(function* () {
          const writer = yield* tenant(["catalog:write", "catalog:read"])
          const records: ImportBody["records"] = [
            {
              resource: "products",
              body: {
                external_id: "p1",
                name: "Sofa",
                category_ids: [{ external_id: "c" }],
                mode: "combined",
                cost: "12345.678"
              }
            },
            {
              resource: "products",
              body: {
                external_id: "p2",
                name: "Chair",
                category_ids: [{ external_id: "c" }],
                mode: "combined",
                price: "99.999"
              }
            },
            { resource: "products", body: { external_id: "p3", name: "", category_ids: [{ external_id: "c" }] } }
          ]
          const dry = yield* submit({ dry_run: true, records }).pipe(as(writer))
          if (dry._tag !== "DryRun") throw new Error("expected a report")
          const text = JSON.stringify(dry.report)
          expect(text).not.toContain("12345.678")
          expect(text).not.toContain("99.999")
          const [cost, price, name] = dry.report.records
          expect(cost!.error).toMatchObject({
            code: "validation_failed",
            details: [{ path: "$.records[0].body.cost", message: expect.stringContaining("costs:read") }]
          })
          expect(price!.error).toMatchObject({
            details: [{ path: "$.records[1].body.price", message: expect.stringContaining("prices:read") }]
          })
          // Catalog fields keep their full message.
          expect(name!.error!.details).toEqual([
            { path: "$.records[2].body.name", message: expect.not.stringContaining("read") }
          ])
          const reader = yield* anotherKey({
            ...writer,
            scopes: new Set(["catalog:write", "catalog:read", "prices:read", "costs:read"])
          })
          const seen = yield* submit({ dry_run: true, records }).pipe(as(reader))
          if (seen._tag !== "DryRun") throw new Error("expected a report")
          // With the read scopes the rule is given in full; no message ever echoes the value sent.
          expect(seen.report.records[0]!.error!.details).toEqual([
            {
              path: "$.records[0].body.cost",
              message: "must be a decimal string with up to 16 integer digits and up to 2 decimals or null"
            }
          ])
        })
    )
  })

  describe("access stops (spec 5.4)", () => {
    const categories = (n: number): ImportBody => ({
      records: Array.from({ length: n }, (_, i) => ({
        resource: "categories" as const,
        body: { external_id: `c${i}`, name: `C${i}` }
      }))
    })

    it.effect(
      "a job whose key was revoked after submission writes nothing, ends failed with key_revoked, and a retry with an active key of the connection runs it",
      () =>
        Effect.gen(function* () {
          const who = yield* tenant()
          const accounts = yield* Accounts
          const job = yield* queued(categories(3)).pipe(as(who))
          yield* accounts.revokeKey(who.keyId, new Date().toISOString())
          yield* work
          const { job: stopped } = yield* detail(job.id).pipe(as(who))
          expect(stopped).toMatchObject({
            state: "failed",
            failure: { code: "key_revoked" },
            counts: { created: 0, pending: 3 }
          })
          expect((yield* list("categories").pipe(as(who))).records).toEqual([])
          const other = yield* anotherKey(who)
          expect(yield* Effect.flatMap(JobService, (s) => s.retry(job.id)).pipe(as(other))).toMatchObject({
            state: "queued",
            run: 2
          })
          yield* work
          expect((yield* detail(job.id).pipe(as(other))).job).toMatchObject({
            state: "completed",
            counts: { created: 3, failed: 0 }
          })
        })
    )

    it.effect("a disabled connection or subscription stops a queued job with its own code", () =>
      Effect.gen(function* () {
        const accounts = yield* Accounts
        const who = yield* tenant()
        const job = yield* queued(categories(1)).pipe(as(who))
        const connection = Option.getOrThrow(yield* accounts.getConnection(who.connectionId))
        yield* accounts.saveConnection({ ...connection, enabled: false })
        yield* work
        expect((yield* detail(job.id).pipe(as(who))).job).toMatchObject({
          state: "failed",
          failure: { code: "connection_disabled" }
        })
        const other = yield* tenant()
        const second = yield* queued(categories(1)).pipe(as(other))
        const company = Option.getOrThrow(yield* accounts.getCompany(other.company.id))
        yield* accounts.saveCompany({ ...company, subscription_active: false })
        yield* work
        expect((yield* detail(second.id).pipe(as(other))).job).toMatchObject({
          state: "failed",
          failure: { code: "subscription_inactive" }
        })
      })
    )

    it.effect(
      "access is checked before every batch: a key revoked while a batch runs lets that batch finish and writes nothing after it",
      () =>
        Effect.gen(function* () {
          const who = yield* tenant()
          const accounts = yield* Accounts
          const total = recordsPerTransaction + 5
          const job = yield* queued(categories(total)).pipe(as(who))
          // The first batch's check passes; the key is revoked right after it, as an operator would mid-run.
          const claimed = Option.getOrThrow(
            yield* Effect.flatMap(JobStore, (jobs) =>
              jobs.claim({ workerId: "w", nowMillis: Date.now(), leaseMillis: 60_000, at: new Date().toISOString() })
            )
          )
          const revoking = Layer.succeed(Accounts, {
            ...accounts,
            findKey: (keyId, domain) =>
              Effect.tap(accounts.findKey(keyId, domain), () => accounts.revokeKey(keyId, new Date().toISOString()))
          })
          // Built afresh (`local`): the block's memoized ImportService would keep the accounts it was built with.
          const imports = yield* ImportService.pipe(
            Effect.provide(ImportService.Default.pipe(Layer.provide(revoking)), { local: true })
          )
          yield* imports.process(claimed, "w", 60_000)
          const { job: stopped } = yield* detail(job.id).pipe(as(who))
          expect(stopped).toMatchObject({
            state: "failed",
            failure: { code: "key_revoked" },
            counts: { created: recordsPerTransaction, pending: 5 }
          })
          const other = yield* anotherKey(who)
          yield* Effect.flatMap(JobService, (s) => s.retry(job.id)).pipe(as(other))
          yield* work
          const { job: done, report } = yield* detail(job.id).pipe(as(other))
          expect(done).toMatchObject({ state: "completed", counts: { created: total, failed: 0 } })
          expect(report!.rerun).toHaveLength(5)
          expect((yield* list("categories", { limit: 100 }).pipe(as(who))).records.every((r) => r.revision === 1)).toBe(
            true
          )
        })
    )
  })

  describe("retry", () => {
    it.effect(
      "a completed job with failed records re-runs only those and says which; once all applied it cannot be retried",
      () =>
        Effect.gen(function* () {
          const who = yield* tenant()
          const job = yield* queued({
            records: [
              { resource: "categories", body: { external_id: "a", name: "A" } },
              {
                resource: "products",
                body: { external_id: "p", name: "Sofa", category_ids: [{ external_id: "later" }] }
              }
            ]
          }).pipe(as(who))
          yield* work
          expect((yield* detail(job.id).pipe(as(who))).job).toMatchObject({
            state: "completed",
            counts: { created: 1, failed: 1 }
          })
          yield* upsert("categories", { external_id: "later", name: "Later" }).pipe(as(who))
          const retried = yield* Effect.flatMap(JobService, (s) => s.retry(job.id, "import")).pipe(as(who))
          expect(retried).toMatchObject({ state: "queued", run: 2, counts: { created: 1, pending: 1, failed: 0 } })
          yield* work
          const { job: done, report } = yield* detail(job.id).pipe(as(who))
          expect(done).toMatchObject({ state: "completed", run: 2, attempts: 2, counts: { created: 2, failed: 0 } })
          expect(report).toMatchObject({ run: 2, rerun: [1] })
          expect(report!.records.map((r) => r.run)).toEqual([1, 2])
          expect((yield* list("categories", { externalId: "a" }).pipe(as(who))).records[0]!.revision).toBe(1)
          const again = yield* Effect.flip(Effect.flatMap(JobService, (s) => s.retry(job.id)).pipe(as(who)))
          expect(again).toMatchObject({ _tag: "JobNotRetryable", state: "completed" })
          expect(again.message).toContain("nothing to retry")
        })
    )
  })
})
