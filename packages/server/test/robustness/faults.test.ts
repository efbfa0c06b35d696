import { JobStore, Scope } from "@catalog-sync/core"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import sharp from "sharp"
import { PersistenceLive } from "../../src/Server.js"
import { at, idOf, num, records, str } from "../Json.js"
import { stockTenant, stockWrite } from "../StockTenant.js"
import { call, freshKey, type Reply, TestServer, TestServerWith, testDatabase, uploadMedia } from "../TestServer.js"
import { type Arming, failingSql } from "./FailingSql.js"

const writer = Scope.all.filter((scope) => !scope.startsWith("stock:"))
const db = failingSql(testDatabase)
/** The job worker's claims and heartbeats run beside the request under test; they are not counted. */
const jobStatements = /\bjobs\b/

/**
 * One write swept over its statements: for N = 1, 2, … the N-th statement fails, until the write no
 * longer reaches an N-th statement. Each N starts from fresh state; after the fault nothing of the write
 * may be visible, and the same request (same Idempotency-Key) must then apply it exactly once.
 */
interface Sweep<S, W> {
  readonly prepare: Effect.Effect<S, unknown, TestServer>
  readonly arming: Arming
  /** The write, sent with the fault armed; returns once the fault can no longer fire (its job ended). */
  readonly write: (state: S, idempotencyKey: string) => Effect.Effect<W, unknown, TestServer>
  /** The write ran clean (N past its last statement). */
  readonly clean: (state: S, written: W) => Effect.Effect<void, unknown, TestServer>
  /** The write hit the fault: a clean error, nothing half-applied. */
  readonly faulted: (state: S, written: W, n: number) => Effect.Effect<void, unknown, TestServer>
  /** Once the fault is gone, the same request (or the job's retry) applies the write once. */
  readonly recovered: (
    state: S,
    written: W,
    idempotencyKey: string,
    n: number
  ) => Effect.Effect<void, unknown, TestServer>
}

const sweep = <S, W>(name: string, steps: Sweep<S, W>) =>
  Effect.gen(function* () {
    const before = db.injected
    let n = 1
    for (; ; n++) {
      const state = yield* steps.prepare
      const idempotencyKey = freshKey()
      db.arm(n, steps.arming)
      const written = yield* steps.write(state, idempotencyKey).pipe(Effect.ensuring(Effect.sync(() => db.disarm())))
      if (db.injected === before + n - 1) {
        yield* steps.clean(state, written)
        break
      }
      yield* steps.faulted(state, written, n)
      yield* steps.recovered(state, written, idempotencyKey, n)
    }
    console.log(`${name}: ${n - 1} statements swept (${testDatabase})`)
    // A sweep that never fired proves nothing.
    expect(n).toBeGreaterThan(2)
  })

/** Every answer to a faulted request: 503 with Retry-After and the spec's error body. */
const expectUnavailable = (reply: Reply, n: number) => {
  expect({ n, at: db.at, status: reply.status, code: at(reply.body, "error", "code") }).toEqual({
    n,
    at: db.at,
    status: 503,
    code: "storage_unavailable"
  })
  expect(reply.headers.get("retry-after")).not.toBeNull()
  expect(reply.headers.get("x-request-id")).toBe(at(reply.body, "request_id"))
}

const feedOf = (url: string, token: string, resource: string) =>
  Effect.map(call(url, "GET", `/changes?resource=${resource}&limit=100`, { token }), (reply) => records(reply.body))

/** A catalog tenant with a writer key and a category to link. */
const catalogTenant = Effect.gen(function* () {
  const { url, tenant } = yield* TestServer
  const token = yield* (yield* tenant()).key(writer)
  const category = yield* call(url, "POST", "/categories/upsert", {
    token,
    body: { external_id: "sofas", name: "Sofas" }
  })
  return { url, token, categoryId: idOf(category.body) }
})

/** The end of the job a 202 queued, as the worker left it. */
const jobEnd = (
  waitJob: Effect.Success<typeof jobWatcher>,
  scope: JobStore.JobScope,
  reply: { readonly status: number; readonly body: unknown }
) =>
  Effect.gen(function* () {
    expect(reply.status).toBe(202)
    const id = str(reply.body, "job", "id")
    const job = yield* waitJob(scope, id)
    return { id, state: job.state, failure: job.failure }
  })

/** A tenant with a writer key, and the scope to look its jobs up with. */
const jobTenant = Effect.gen(function* () {
  const { url, tenant } = yield* TestServer
  const t = yield* tenant()
  return {
    url,
    token: yield* t.key(writer),
    scope: { companyId: t.companyId, connectionId: t.connectionId } as JobStore.JobScope
  }
})

/** Waits for a job's end through a database client of its own, so that the wait sends no counted statement. */
const jobWatcher = Effect.gen(function* () {
  const { config } = yield* TestServer
  const jobs = Context.get(yield* Layer.build(PersistenceLive(config)), JobStore.JobStore)
  return (scope: JobStore.JobScope, id: string) =>
    Effect.gen(function* () {
      for (let i = 0; i < 800; i++) {
        const job = yield* jobs.get(scope, id)
        if (Option.isSome(job) && ["completed", "failed", "paused"].includes(job.value.state)) return job.value
        yield* Effect.sleep("25 millis")
      }
      return yield* Effect.die(new Error(`job ${id} did not end`))
    })
})

layer(TestServerWith({ sql: db.wrap }), { excludeTestServices: true, timeout: 120_000 })(
  "fault injection: the N-th statement fails",
  (it) => {
    it.effect(
      "a product upsert is all or nothing at every statement, answers 503 + Retry-After, and its replay succeeds",
      () =>
        sweep("product upsert", {
          prepare: catalogTenant,
          arming: { skip: jobStatements },
          write: (t, idempotencyKey) =>
            call(t.url, "POST", "/products/upsert", {
              token: t.token,
              idempotencyKey,
              body: { external_id: "p-1", name: "Sofa", category_ids: [t.categoryId], mode: "combined", price: "10" }
            }),
          clean: (_, reply) => Effect.sync(() => expect(reply.status).toBe(200)),
          faulted: (t, reply, n) =>
            Effect.gen(function* () {
              expectUnavailable(reply, n)
              const list = yield* call(t.url, "GET", "/products", { token: t.token })
              expect({ n, records: at(list.body, "records") }).toEqual({ n, records: [] })
              expect({ n, changes: yield* feedOf(t.url, t.token, "products") }).toEqual({ n, changes: [] })
            }),
          recovered: (t, _, idempotencyKey, n) =>
            Effect.gen(function* () {
              const body = {
                external_id: "p-1",
                name: "Sofa",
                category_ids: [t.categoryId],
                mode: "combined",
                price: "10"
              }
              const replay = yield* call(t.url, "POST", "/products/upsert", { token: t.token, body, idempotencyKey })
              expect({
                n,
                status: replay.status,
                outcome: at(replay.body, "outcome"),
                revision: at(replay.body, "record", "revision")
              }).toEqual({ n, status: 200, outcome: "created", revision: 1 })
              expect(yield* feedOf(t.url, t.token, "products")).toHaveLength(1)
            })
        })
    )

    it.effect(
      "an archive is all or nothing at every statement, answers 503 + Retry-After, and its replay succeeds",
      () =>
        sweep("archive", {
          prepare: Effect.gen(function* () {
            const t = yield* catalogTenant
            const product = yield* call(t.url, "POST", "/products/upsert", {
              token: t.token,
              body: { external_id: "p-1", name: "Sofa", category_ids: [t.categoryId] }
            })
            return { ...t, path: `/products/${idOf(product.body)}` }
          }),
          arming: { skip: jobStatements },
          write: (t, idempotencyKey) =>
            call(t.url, "DELETE", t.path, { token: t.token, body: { expected_revision: 1 }, idempotencyKey }),
          clean: (_, reply) => Effect.sync(() => expect(reply.status).toBe(200)),
          faulted: (t, reply, n) =>
            Effect.gen(function* () {
              expectUnavailable(reply, n)
              const read = yield* call(t.url, "GET", t.path, { token: t.token })
              expect({
                n,
                revision: at(read.body, "record", "revision"),
                archived: at(read.body, "record", "state") === "archived"
              }).toEqual({ n, revision: 1, archived: false })
              expect({ n, changes: (yield* feedOf(t.url, t.token, "products")).length }).toEqual({ n, changes: 1 })
            }),
          recovered: (t, _, idempotencyKey, n) =>
            Effect.gen(function* () {
              const replay = yield* call(t.url, "DELETE", t.path, {
                token: t.token,
                body: { expected_revision: 1 },
                idempotencyKey
              })
              expect({
                n,
                status: replay.status,
                state: at(replay.body, "record", "state"),
                revision: at(replay.body, "record", "revision")
              }).toEqual({ n, status: 200, state: "archived", revision: 2 })
              expect(yield* feedOf(t.url, t.token, "products")).toHaveLength(2)
            })
        })
    )

    it.effect(
      "a stock write is all or nothing at every statement: balance, event and change; its replay applies it once",
      () =>
        sweep("stock write", {
          prepare: Effect.gen(function* () {
            const t = yield* stockTenant()
            const first = yield* call(t.url, "POST", "/inventory", {
              token: t.token,
              body: stockWrite({ location_id: t.writable })
            })
            expect(at(first.body, "record", "balances", 0, "physical")).toBe("5")
            return {
              ...t,
              cardId: idOf(first.body),
              body: stockWrite({
                source_id: t.productId,
                location_id: t.writable,
                action: "in",
                quantity: "3",
                revision: 1
              })
            }
          }),
          arming: { skip: jobStatements },
          write: (t, idempotencyKey) =>
            call(t.url, "POST", "/inventory", { token: t.token, body: t.body, idempotencyKey }),
          clean: (_, reply) => Effect.sync(() => expect(at(reply.body, "record", "balances", 0, "physical")).toBe("8")),
          faulted: (t, reply, n) =>
            Effect.gen(function* () {
              expectUnavailable(reply, n)
              const card = yield* call(t.url, "GET", `/inventory/${t.cardId}`, { token: t.token })
              expect({ n, balance: at(card.body, "record", "balances", 0) }).toMatchObject({
                n,
                balance: { physical: "5", revision: 1 }
              })
              expect({ n, changes: (yield* feedOf(t.url, t.token, "inventory")).length }).toEqual({ n, changes: 1 })
            }),
          recovered: (t, _, idempotencyKey, n) =>
            Effect.gen(function* () {
              const replay = yield* call(t.url, "POST", "/inventory", { token: t.token, body: t.body, idempotencyKey })
              expect({ n, status: replay.status, balance: at(replay.body, "record", "balances", 0) }).toMatchObject({
                n,
                status: 200,
                balance: { physical: "8", revision: 2 }
              })
              // The same event_id under a new key replays instead of adding 3 again.
              const again = yield* call(t.url, "POST", "/inventory", { token: t.token, body: t.body })
              expect({
                replayed: at(again.body, "replayed"),
                physical: at(again.body, "record", "balances", 0, "physical")
              }).toEqual({
                replayed: true,
                physical: "8"
              })
              expect(yield* feedOf(t.url, t.token, "inventory")).toHaveLength(2)
            })
        })
    )

    const importRecords = Array.from({ length: 3 }, (_, i) => ({
      resource: "categories",
      body: { external_id: `c-${i}`, name: `Category ${i}` }
    }))

    it.effect(
      "an import job hit by a fault at any statement of its worker ends failed or completed, never half-applied; its retry applies each record once",
      () =>
        Effect.gen(function* () {
          const waitJob = yield* jobWatcher
          yield* sweep("import batch", {
            prepare: jobTenant,
            // Counting starts at the worker's read of the job's records, so the request and the claim are not swept.
            arming: { skip: jobStatements, after: /FROM import_records WHERE job_id = \S+ ORDER BY idx/ },
            write: (t, idempotencyKey) =>
              Effect.gen(function* () {
                return yield* jobEnd(
                  waitJob,
                  t.scope,
                  yield* call(t.url, "POST", "/imports", {
                    token: t.token,
                    body: { records: importRecords },
                    idempotencyKey
                  })
                )
              }),
            clean: (_, job) => Effect.sync(() => expect(job.state).toBe("completed")),
            faulted: (t, job, n) =>
              Effect.gen(function* () {
                // A fault the worker retries (busy) may still end completed; any other fails the job as retryable.
                if (job.state !== "completed")
                  expect({ n, state: job.state, code: job.failure?.code }).toEqual({
                    n,
                    state: "failed",
                    code: "storage_unavailable"
                  })
                const report = yield* call(t.url, "GET", `/imports/${job.id}`, { token: t.token })
                const applied = records(report.body, "report", "records")
                  .filter((r) => r.status === "applied")
                  .map((r) => str(r, "id"))
                  .sort()
                const listed = records((yield* call(t.url, "GET", "/categories", { token: t.token })).body)
                // What the report calls applied is exactly what exists, each at revision 1 with one change.
                expect({ n, listed: listed.map((r) => r.id).sort() }).toEqual({ n, listed: applied })
                expect(listed.every((r) => r.revision === 1)).toBe(true)
                expect({ n, changes: (yield* feedOf(t.url, t.token, "categories")).length }).toEqual({
                  n,
                  changes: applied.length
                })
              }),
            recovered: (t, job, _, n) =>
              Effect.gen(function* () {
                if (job.state === "failed") {
                  const retry = yield* call(t.url, "POST", `/jobs/${job.id}/retry`, { token: t.token })
                  expect({ n, status: retry.status }).toEqual({ n, status: 202 })
                  expect((yield* waitJob(t.scope, job.id)).state).toBe("completed")
                }
                const listed = records((yield* call(t.url, "GET", "/categories", { token: t.token })).body)
                expect({
                  n,
                  names: listed.map((r) => `${str(r, "external_id")}@${num(r, "revision")}`).sort()
                }).toEqual({
                  n,
                  names: ["c-0@1", "c-1@1", "c-2@1"]
                })
                expect(yield* feedOf(t.url, t.token, "categories")).toHaveLength(3)
              })
          })
        }).pipe(Effect.scoped)
    )

    it.effect(
      "a media job hit by a fault at any statement of its worker ends failed, its media still queued; its retry completes it once",
      () =>
        Effect.gen(function* () {
          const waitJob = yield* jobWatcher
          const png = yield* Effect.promise(() =>
            sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 20, g: 80, b: 160 } } })
              .png()
              .toBuffer()
          )
          yield* sweep("media completion", {
            prepare: jobTenant,
            arming: { skip: jobStatements, after: /FROM media WHERE job_id = / },
            write: (t, idempotencyKey) =>
              Effect.gen(function* () {
                return yield* jobEnd(
                  waitJob,
                  t.scope,
                  yield* uploadMedia(
                    t.url,
                    t.token,
                    { external_id: "m-1", name: "Sofa", purpose: "catalog" },
                    png,
                    idempotencyKey
                  )
                )
              }),
            clean: (_, job) => Effect.sync(() => expect(job.state).toBe("completed")),
            faulted: (t, job, n) =>
              Effect.gen(function* () {
                expect({ n, state: job.state, code: job.failure?.code }).toEqual({
                  n,
                  state: "failed",
                  code: "storage_unavailable"
                })
                const media = records((yield* call(t.url, "GET", "/media", { token: t.token })).body)
                // Still staged and waiting for the job's retry: `failed` is kept for images that need a new upload.
                expect({ n, states: media.map((m) => [m.state, m.failure]) }).toEqual({ n, states: [["queued", null]] })
              }),
            recovered: (t, job, _, n) =>
              Effect.gen(function* () {
                const retry = yield* call(t.url, "POST", `/jobs/${job.id}/retry`, { token: t.token })
                expect({ n, status: retry.status }).toEqual({ n, status: 202 })
                expect((yield* waitJob(t.scope, job.id)).state).toBe("completed")
                const media = records((yield* call(t.url, "GET", "/media", { token: t.token })).body)
                expect({ n, media: media.map((m) => [m.state, m.width, m.height]) }).toEqual({
                  n,
                  media: [["completed", 64, 48]]
                })
                const content = yield* call(t.url, "GET", `/media/${str(media, 0, "id")}/content`, { token: t.token })
                expect(content.status).toBe(200)
              })
          })
        }).pipe(Effect.scoped)
    )
  }
)
