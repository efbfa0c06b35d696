import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { PersistenceLive, ServerLive } from "../src/Server.js"
import { asArray, at, records, str } from "./Json.js"
import { call, expectError, freshKey, TestServer, TestServerLive, TestServerWith } from "./TestServer.js"

const writer = ["catalog:read", "catalog:write", "prices:read", "prices:write"]

/** Polls GET /imports/{id} until the job has finished. */
const finished = (url: string, token: string, id: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200; i++) {
      const reply = yield* call(url, "GET", `/imports/${id}`, { token })
      if (at(reply.body, "job", "state") === "completed" || at(reply.body, "job", "state") === "failed")
        return reply.body
      yield* Effect.sleep("50 millis")
    }
    throw new Error(`job ${id} did not finish`)
  })

const category = (externalId: string, extra: Record<string, unknown> = {}) => ({
  resource: "categories",
  body: { external_id: externalId, name: externalId, ...extra }
})
const product = (externalId: string, categoryId: string) => ({
  resource: "products",
  body: { external_id: externalId, name: externalId, category_ids: [{ external_id: categoryId }] }
})

/** 50 categories whose parents are each the next one: one record resolves per pass when applied in body order. */
const reverseChain = (tag: string) =>
  Array.from({ length: 50 }, (_, i) =>
    category(`${tag}-${i}`, {
      description: "d".repeat(4000),
      parent_id: i < 49 ? { external_id: `${tag}-${i + 1}` } : null
    })
  )

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("imports and jobs end to end", (it) => {
  describe("POST /imports", () => {
    it.effect("a chain sent in reverse: the dry run and the job each create its 50 records", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(writer)
        const dry = yield* call(url, "POST", "/imports", {
          token,
          body: { dry_run: true, records: reverseChain("dry") }
        })
        expect(dry.status).toBe(200)
        expect(at(dry.body, "report")).toMatchObject({ dry_run: true, created: 50, failed: 0 })
        const accepted = yield* call(url, "POST", "/imports", { token, body: { records: reverseChain("job") } })
        expect(accepted.status).toBe(202)
        const done = yield* finished(url, token, str(accepted.body, "job", "id"))
        expect(at(done, "job")).toMatchObject({ state: "completed", counts: { total: 50, created: 50, failed: 0 } })
        const listed = yield* call(url, "GET", "/categories?external_id=job-0", { token })
        expect(at(listed.body, "records")).toHaveLength(1)
      })
    )

    it.effect(
      "a company's dry runs past two at once get 429 rate_limited with Retry-After; another company's write goes on",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const [a, b] = [yield* tenant(), yield* tenant()]
          const [tokenA, tokenB] = [yield* a.key(writer), yield* b.key(writer)]
          const [dryRuns, other] = yield* Effect.all(
            [
              Effect.all(
                Array.from({ length: 6 }, (_, i) =>
                  call(url, "POST", "/imports", {
                    token: tokenA,
                    body: { dry_run: true, records: reverseChain(`g${i}`) }
                  })
                ),
                { concurrency: "unbounded" }
              ),
              call(url, "POST", "/categories/upsert", { token: tokenB, body: { external_id: "b", name: "B" } })
            ],
            { concurrency: "unbounded" }
          )
          expect(other.status).toBe(200)
          expect(at(other.body, "outcome")).toBe("created")
          const refused = dryRuns.filter((reply) => reply.status === 429)
          expect(refused.length).toBeGreaterThan(0)
          for (const reply of refused) {
            expectError(reply, 429, "rate_limited")
            expect(reply.headers.get("retry-after")).toBe("1")
          }
          for (const reply of dryRuns.filter((reply) => reply.status !== 429)) {
            expect(reply.status).toBe(200)
            expect(at(reply.body, "report")).toMatchObject({ created: 50, failed: 0 })
          }
          // A refused dry run took no place: sent again after the others answered, it runs.
          const again = yield* call(url, "POST", "/imports", {
            token: tokenA,
            body: { dry_run: true, records: reverseChain("again") }
          })
          expect(again.status).toBe(200)
        })
    )

    it.effect("a job applies records over passes; GET /imports/{id} and /jobs/{id} show the job and its report", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(writer)
        const accepted = yield* call(url, "POST", "/imports", {
          token,
          body: {
            records: [
              product("p1", "child"),
              category("child", { parent_id: { external_id: "root" } }),
              category("root"),
              {
                resource: "customization-options",
                body: { external_id: "o", name: "Red", group_id: { external_id: "g" } }
              },
              {
                resource: "customization-groups",
                body: { external_id: "g", name: "Book", type_id: { external_id: "t" } }
              },
              { resource: "customization-types", body: { external_id: "t", name: "Fabric" } }
            ]
          }
        })
        expect(accepted.status).toBe(202)
        expect(at(accepted.body, "job")).toMatchObject({
          kind: "import",
          state: "queued",
          run: 1,
          counts: { total: 6, pending: 6 },
          started_at: null
        })
        const done = yield* finished(url, token, str(accepted.body, "job", "id"))
        expect(at(done, "job")).toMatchObject({
          state: "completed",
          attempts: 1,
          counts: { total: 6, created: 6, failed: 0, pending: 0 }
        })
        expect(at(done, "report")).toMatchObject({ dry_run: false, run: 1, created: 6, failed: 0, rerun: [] })
        expect(at(done, "report", "records", 0)).toMatchObject({
          index: 0,
          resource: "products",
          external_id: "p1",
          status: "applied",
          outcome: "created",
          error: null,
          run: 1
        })
        const viaJobs = yield* call(url, "GET", `/jobs/${str(accepted.body, "job", "id")}`, { token })
        expect(at(viaJobs.body, "job")).toEqual(at(done, "job"))
        const products = yield* call(url, "GET", "/products?external_id=p1", { token })
        expect(at(products.body, "records", 0, "id")).toBe(at(done, "report", "records", 0, "id"))
      })
    )

    it.effect(
      "a failed record does not cancel valid ones; the job completes with it counted (spec 3); retry re-runs only the failed records",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const t = yield* tenant()
          const token = yield* t.key(writer)
          const accepted = yield* call(url, "POST", "/imports", {
            token,
            body: {
              records: [
                category("a"),
                product("p", "missing"),
                { resource: "brands", body: { external_id: "b", name: "B", price: "1" } }
              ]
            }
          })
          const failed = yield* finished(url, token, str(accepted.body, "job", "id"))
          expect(at(failed, "job")).toMatchObject({
            state: "completed",
            failure: null,
            counts: { created: 1, failed: 2 }
          })
          expect(at(failed, "report", "records", 1, "error")).toMatchObject({
            code: "unresolved_reference",
            details: [{ path: "$.records[1].body.category_ids[0]" }]
          })
          expect(at(failed, "report", "records", 2, "error", "code")).toBe("validation_failed")
          yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "missing", name: "Now here" } })
          const key = freshKey()
          const retried = yield* call(url, "POST", `/imports/${str(accepted.body, "job", "id")}/retry`, {
            token,
            idempotencyKey: key
          })
          expect(retried.status).toBe(202)
          expect(at(retried.body, "job")).toMatchObject({ state: "queued", run: 2 })
          const replay = yield* call(url, "POST", `/imports/${str(accepted.body, "job", "id")}/retry`, {
            token,
            idempotencyKey: key
          })
          expect(replay.status).toBe(202)
          expect(replay.body).toMatchObject({ replayed: true, job: { run: 2 } })
          // Replaying the retry still needs the write scopes of the records it re-runs.
          const readOnly = yield* t.key(["catalog:read"])
          expectError(
            yield* call(url, "POST", `/imports/${str(accepted.body, "job", "id")}/retry`, {
              token: readOnly,
              idempotencyKey: key
            }),
            403,
            "insufficient_scope"
          )
          const after = yield* finished(url, token, str(accepted.body, "job", "id"))
          expect(at(after, "job")).toMatchObject({
            state: "completed",
            run: 2,
            attempts: 2,
            counts: { created: 2, failed: 1 }
          })
          expect(at(after, "report", "rerun")).toEqual([1, 2])
          expect(records(at(after, "report")).map((r) => [r.status, r.run])).toEqual([
            ["applied", 1],
            ["applied", 2],
            ["failed", 2]
          ])
          const a = yield* call(url, "GET", "/categories?external_id=a", { token })
          expect(at(a.body, "records", 0, "revision")).toBe(1)
          // A completed import with every record applied has nothing to retry.
          const completed = yield* call(url, "POST", "/imports", { token, body: { records: [category("c")] } })
          yield* finished(url, token, str(completed.body, "job", "id"))
          const refused = yield* call(url, "POST", `/jobs/${str(completed.body, "job", "id")}/retry`, { token })
          expectError(refused, 409, "job_not_retryable")
          expect(at(refused.body, "error", "details")).toEqual({ state: "completed" })
          expect(at(refused.body, "error", "message")).toContain("nothing to retry")
        })
    )

    it.effect("a dry run answers with the report and leaves no record, mapping, change or job", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key([...writer])
        const reply = yield* call(url, "POST", "/imports", {
          token,
          body: { dry_run: true, records: [product("p", "c"), category("c"), category("bad", { name: "" })] }
        })
        expect(reply.status).toBe(200)
        expect(at(reply.body, "report")).toMatchObject({ dry_run: true, total: 3, created: 2, failed: 1, pending: 0 })
        expect(at(reply.body, "report", "records", 0)).toMatchObject({
          status: "applied",
          outcome: "created",
          id: null
        })
        expect(at(reply.body, "report", "records", 2, "error")).toMatchObject({
          code: "validation_failed",
          details: [{ path: "$.records[2].body.name" }]
        })
        expect(at((yield* call(url, "GET", "/categories", { token })).body, "records")).toEqual([])
        expect(at((yield* call(url, "GET", "/products", { token })).body, "records")).toEqual([])
        expect(at((yield* call(url, "GET", "/changes", { token })).body, "records")).toEqual([])
        expect(at((yield* call(url, "GET", "/imports", { token })).body, "records")).toEqual([])
        const create = yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "c", name: "c" } })
        expect(at(create.body, "outcome")).toBe("created")
      })
    )

    it.effect("the body is strict; scopes of every record are checked up front; no 500s", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(writer)
        const strictness = [
          { records: [category("a")], extra: true },
          { records: [{ ...category("a"), extra: 1 }] },
          { records: [] },
          { records: Array.from({ length: 51 }, (_, i) => category(`c${i}`)) },
          { records: [{ resource: "orders", body: {} }] },
          { records: [{ resource: "categories", body: "text" }] },
          { records: [{ resource: "categories" }] },
          { dry_run: "yes", records: [category("a")] }
        ]
        for (const body of strictness)
          expectError(yield* call(url, "POST", "/imports", { token, body }), 422, "validation_failed")
        const extra = yield* call(url, "POST", "/imports", {
          token,
          body: { records: [{ ...category("a"), extra: 1 }] }
        })
        expect(at(extra.body, "error", "details")).toEqual([
          { path: "$.records[0].extra", message: "is not an allowed property" }
        ])
        expectError(
          yield* call(url, "POST", "/imports", { token, raw: "{", headers: { "content-type": "application/json" } }),
          400,
          "malformed_json"
        )
        expectError(
          yield* call(url, "POST", "/imports", { token, body: { records: [category("a")] }, idempotencyKey: null }),
          422,
          "idempotency_key_invalid"
        )
        const catalogOnly = yield* t.key(["catalog:read", "catalog:write"])
        const denied = yield* call(url, "POST", "/imports", {
          token: catalogOnly,
          body: {
            records: [category("a"), { resource: "products", body: { external_id: "p", mode: "prices", price: "10" } }]
          }
        })
        expectError(denied, 403, "insufficient_scope")
        expect(at(denied.body, "error", "details")).toEqual({ required: ["prices:write"] })
        expectError(yield* call(url, "GET", "/imports/not-a-uuid", { token }), 404, "not_found")
        expectError(yield* call(url, "GET", "/jobs?limit=0", { token }), 422, "validation_failed")
        expectError(yield* call(url, "GET", "/jobs?state=queued", { token }), 422, "validation_failed")
      })
    )

    it.effect("a connection sees its own jobs only", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(writer)
        const other = yield* t.key(writer, { connectionId: yield* t.newConnection })
        const accepted = yield* call(url, "POST", "/imports", { token, body: { records: [category("a")] } })
        const id = str(accepted.body, "job", "id")
        expectError(yield* call(url, "GET", `/imports/${id}`, { token: other }), 404, "not_found")
        expectError(yield* call(url, "GET", `/jobs/${id}`, { token: other }), 404, "not_found")
        expectError(yield* call(url, "POST", `/jobs/${id}/retry`, { token: other }), 404, "not_found")
        expect(at((yield* call(url, "GET", "/jobs", { token: other })).body, "records")).toEqual([])
        const mine = yield* call(url, "GET", "/imports?limit=1", { token })
        expect(records(mine.body).map((j) => j.id)).toEqual([id])
        expect(mine.body).toMatchObject({ has_more: false, next_cursor: null })
      })
    )

    it.effect(
      "50 records with 950 unknown properties each (~450 KB, within the distinct-key limit): the job's report and the dry run's are < 1 MB, at most 20 details per record",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const t = yield* tenant()
          const token = yield* t.key(writer)
          const records = Array.from({ length: 50 }, (_, r) => ({
            resource: "products",
            body: {
              external_id: `p${r}`,
              name: "Chair",
              ...Object.fromEntries(Array.from({ length: 950 }, (_, k) => [`x${k}`, 0]))
            }
          }))
          const accepted = yield* call(url, "POST", "/imports", { token, body: { records } })
          expect(accepted.status, accepted.text).toBe(202)
          yield* finished(url, token, str(accepted.body, "job", "id"))
          for (const path of [
            `/imports/${str(accepted.body, "job", "id")}`,
            `/jobs/${str(accepted.body, "job", "id")}`
          ]) {
            const reply = yield* call(url, "GET", path, { token })
            expect(at(reply.body, "job", "counts")).toMatchObject({ total: 50, failed: 50 })
            expect(Buffer.byteLength(reply.text)).toBeLessThan(1024 * 1024)
            for (const item of asArray(reply.body, "report", "records")) {
              const details = at(item, "error", "details")
              expect(Array.isArray(details) ? details.length : 0).toBeLessThanOrEqual(20)
            }
          }
          const dryRun = yield* call(url, "POST", "/imports", { token, body: { dry_run: true, records } })
          expect(dryRun.status).toBe(200)
          expect(at(dryRun.body, "report", "failed")).toBe(50)
          expect(Buffer.byteLength(dryRun.text)).toBeLessThan(1024 * 1024)
        })
    )

    it.effect("a server deletes the import jobs that finished more than JOB_RETENTION_DAYS ago, from its start", () =>
      Effect.gen(function* () {
        const { url, tenant, config } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(writer)
        const submit = (externalId: string) =>
          Effect.map(call(url, "POST", "/imports", { token, body: { records: [category(externalId)] } }), (reply) =>
            str(reply.body, "job", "id")
          )
        const [old, recent] = [yield* submit("old"), yield* submit("recent")]
        for (const id of [old, recent]) yield* finished(url, token, id)
        // As if they had finished 8 and 6 days ago.
        const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000).toISOString()
        yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE jobs SET finished_at = ${daysAgo(8)} WHERE id = ${old}`
          yield* sql`UPDATE jobs SET finished_at = ${daysAgo(6)} WHERE id = ${recent}`
        }).pipe(Effect.provide(PersistenceLive(config)))
        // Another server on the same database, keeping them 7 days: its purge runs as it starts.
        yield* Layer.build(ServerLive(config)).pipe(
          Effect.provideService(
            ConfigProvider.ConfigProvider,
            ConfigProvider.fromEnvRecord({ JOB_WORKERS: "0", JOB_RETENTION_DAYS: "7" }).pipe(
              ConfigProvider.orElse(ConfigProvider.fromEnv())
            )
          )
        )
        let status = 200
        for (let i = 0; i < 100 && status === 200; i++) {
          status = (yield* call(url, "GET", `/imports/${old}`, { token })).status
          if (status === 200) yield* Effect.sleep("50 millis")
        }
        expectError(yield* call(url, "GET", `/imports/${old}`, { token }), 404, "not_found")
        expect(at((yield* call(url, "GET", `/imports/${recent}`, { token })).body, "report", "created")).toBe(1)
        expect(records((yield* call(url, "GET", "/imports", { token })).body).map((job) => job.id)).toEqual([recent])
      })
    )
  })
})

// Without workers, jobs stay queued: the pending limit can be reached deterministically.
const NoWorkers = TestServerWith({}, { JOB_WORKERS: "0" })

layer(NoWorkers, { excludeTestServices: true, timeout: 60_000 })("pending job limit", (it) => {
  it.effect("20 pending jobs per connection; the 21st gets 429 with Retry-After; queued jobs cannot be retried", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const t = yield* tenant()
      const token = yield* t.key(writer)
      const ids: Array<string> = []
      for (let i = 0; i < 20; i++) {
        const reply = yield* call(url, "POST", "/imports", { token, body: { records: [category(`c${i}`)] } })
        expect(reply.status).toBe(202)
        ids.push(str(reply.body, "job", "id"))
      }
      const refused = yield* call(url, "POST", "/imports", { token, body: { records: [category("x")] } })
      expectError(refused, 429, "job_limit_reached")
      expect(refused.headers.get("retry-after")).toBe("5")
      expect(at(refused.body, "error", "retry_after")).toBe(5)
      // A dry run creates no job and is not limited.
      expect(
        (yield* call(url, "POST", "/imports", { token, body: { dry_run: true, records: [category("x")] } })).status
      ).toBe(200)
      const other = yield* t.key(writer, { connectionId: yield* t.newConnection })
      expect((yield* call(url, "POST", "/imports", { token: other, body: { records: [category("x")] } })).status).toBe(
        202
      )
      expectError(yield* call(url, "POST", `/imports/${ids[0]}/retry`, { token }), 409, "job_not_retryable")
      const first = yield* call(url, "GET", "/jobs?limit=15", { token })
      expect(first.body).toMatchObject({ has_more: true })
      const second = yield* call(url, "GET", `/jobs?limit=15&cursor=${at(first.body, "next_cursor")}`, { token })
      expect([...records(first.body), ...records(second.body)].map((j) => j.id)).toEqual(ids)
    })
  )
})
