import { StatementHook } from "@catalog-sync/adapter-sql"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import type { SqlConnection } from "effect/sql"
import sharp from "sharp"
import { at, jobOf, str } from "./Json.js"
import { scrape, scrapeUntil } from "./Scrape.js"
import {
  call,
  earlyInMinute,
  freshKey,
  TestServer,
  TestServerWith,
  testDatabase,
  uploadMedia,
  waitJob
} from "./TestServer.js"

const scopes = ["catalog:read", "catalog:write", "media:read", "media:write"]

const metricsUrlOf = Effect.map(TestServer, (server) => {
  expect(server.metricsUrl).toBeDefined()
  return server.metricsUrl!
})

layer(TestServerWith({}, { METRICS_PORT: "0" }), { excludeTestServices: true, timeout: 120_000 })(
  "metrics on a port of their own",
  (it) => {
    it.effect("the API's port does not serve them", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const reply = yield* Effect.promise(() => fetch(`${url}/metrics`))
        expect(reply.status).toBe(404)
        expect((yield* Effect.promise(() => fetch(`${url}/health`))).status).toBe(200)
      })
    )

    it.effect("requests are counted by route template, method and status, with their latency", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const metricsUrl = yield* metricsUrlOf
        const token = yield* (yield* tenant()).key(scopes)
        const upsert = { route: "/api/v1/categories/upsert", method: "POST", status: "200" }
        const byId = { route: "/api/v1/categories/:id", method: "GET" }
        const before = yield* scrape(metricsUrl)
        const created = yield* call(url, "POST", "/categories/upsert", {
          token,
          body: { external_id: "p-1", name: "Sofa" }
        })
        expect(created.status).toBe(200)
        const id = str(created.body, "record", "id")
        yield* call(url, "GET", `/categories/${id}`, { token })
        yield* call(url, "GET", `/categories/00000000-0000-7000-8000-000000000000`, { token })
        // A GET of /categories/upsert is a read of the record "upsert": the same template.
        yield* call(url, "GET", "/categories/upsert", { token })
        yield* call(url, "GET", "/no/such/endpoint", { token })
        const after = yield* scrape(metricsUrl)
        expect(
          after.value("http_server_requests_total", upsert) - before.value("http_server_requests_total", upsert)
        ).toBe(1)
        expect(
          after.value("http_server_requests_total", { ...byId, status: "200" }) -
            before.value("http_server_requests_total", { ...byId, status: "200" })
        ).toBe(1)
        expect(
          after.value("http_server_requests_total", { ...byId, status: "404" }) -
            before.value("http_server_requests_total", { ...byId, status: "404" })
        ).toBe(2)
        expect(
          after.value("http_server_requests_total", { route: "unmatched", status: "404" }) -
            before.value("http_server_requests_total", { route: "unmatched", status: "404" })
        ).toBe(1)
        expect(
          after.count("http_server_request_duration_seconds", upsert) -
            before.count("http_server_request_duration_seconds", upsert)
        ).toBe(1)
        // No series is labelled with a record id: paths are reduced to their templates.
        expect(after.value("http_server_requests_total", { route: `/api/v1/categories/${id}` })).toBe(0)
        expect(after.count("db_transaction_duration_seconds", { outcome: "commit" })).toBeGreaterThan(
          before.count("db_transaction_duration_seconds", { outcome: "commit" })
        )
      })
    )

    it.effect("idempotent replays and conflicts are counted", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const metricsUrl = yield* metricsUrlOf
        const token = yield* (yield* tenant()).key(scopes)
        const key = freshKey()
        const before = yield* scrape(metricsUrl)
        const body = { external_id: "c-1", name: "Chairs" }
        expect((yield* call(url, "POST", "/categories/upsert", { token, body, idempotencyKey: key })).status).toBe(200)
        const replay = yield* call(url, "POST", "/categories/upsert", { token, body, idempotencyKey: key })
        expect(at(replay.body, "replayed")).toBe(true)
        const reused = yield* call(url, "POST", "/categories/upsert", {
          token,
          body: { ...body, name: "Tables" },
          idempotencyKey: key
        })
        expect(reused.status).toBe(409)
        const after = yield* scrape(metricsUrl)
        expect(after.value("idempotency_replays_total") - before.value("idempotency_replays_total")).toBe(1)
        expect(
          after.value("idempotency_conflicts_total", { reason: "mismatch" }) -
            before.value("idempotency_conflicts_total", { reason: "mismatch" })
        ).toBe(1)
      })
    )

    it.effect("import records, job durations, images and the queue gauges", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const metricsUrl = yield* metricsUrlOf
        const token = yield* (yield* tenant()).key(scopes)
        const before = yield* scrape(metricsUrl)
        const submitted = yield* call(url, "POST", "/imports", {
          token,
          body: {
            records: [
              { resource: "categories", body: { external_id: "i-1", name: "One" } },
              { resource: "categories", body: { external_id: "i-2", name: "Two" } },
              {
                resource: "products",
                body: { external_id: "i-3", name: "Three", category_ids: [{ external_id: "missing" }] }
              }
            ]
          }
        })
        expect(submitted.status).toBe(202)
        expect(yield* waitJob(url, token, str(submitted.body, "job", "id"))).toMatchObject({ state: "completed" })
        const png = yield* Effect.promise(() =>
          sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } })
            .png()
            .toBuffer()
        )
        const uploaded = yield* uploadMedia(url, token, { external_id: "m", name: "M", purpose: "catalog" }, png)
        expect(yield* waitJob(url, token, jobOf(uploaded.body).id)).toMatchObject({ state: "completed" })
        const runs = (scraped: typeof before, kind: string) =>
          scraped.count("job_duration_seconds", { kind, outcome: "finished" }) -
          before.count("job_duration_seconds", { kind, outcome: "finished" })
        // A job's run ends a moment after its completion commits (a media job then removes the staged file).
        const after = yield* scrapeUntil(
          metricsUrl,
          (scraped) => runs(scraped, "import") >= 1 && runs(scraped, "media") >= 1
        )
        const delta = (family: string, labels: Record<string, string>) =>
          after.value(family, labels) - before.value(family, labels)
        expect(delta("import_records_total", { outcome: "applied" })).toBe(2)
        // The pool gauges come with PostgreSQL as the server is built for production too (no wrapped client).
        expect(after.value("db_pool_max_connections")).toBe(testDatabase === "postgres" ? 5 : 0)
        expect(delta("import_records_total", { outcome: "failed" })).toBe(1)
        expect(runs(after, "import")).toBe(1)
        expect(runs(after, "media")).toBe(1)
        expect(
          after.count("image_processing_duration_seconds", { result: "ok" }) -
            before.count("image_processing_duration_seconds", { result: "ok" })
        ).toBe(1)
        // Every kind and pending state has its gauge, so a dashboard sees 0 rather than nothing.
        for (const kind of ["import", "media"]) {
          for (const state of ["queued", "running", "paused"]) expect(after.value("jobs", { kind, state })).toBe(0)
          expect(after.samples("jobs", { kind })).toBe(3)
          expect(after.value("jobs_oldest_queued_age_seconds", { kind })).toBe(0)
        }
      })
    )

    it.effect("rate-limit rejections are counted by limit", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const metricsUrl = yield* metricsUrlOf
        const token = yield* (yield* tenant()).key(scopes)
        yield* earlyInMinute
        const before = yield* scrape(metricsUrl)
        let refused = 0
        for (let i = 0; i < 125; i++) if ((yield* call(url, "GET", "/me", { token })).status === 429) refused++
        const after = yield* scrape(metricsUrl)
        expect(refused).toBe(5)
        expect(
          after.value("rate_limit_rejections_total", { limit: "key" }) -
            before.value("rate_limit_rejections_total", { limit: "key" })
        ).toBe(5)
        expect(
          after.value("http_server_requests_total", { route: "/api/v1/me", status: "429" }) -
            before.value("http_server_requests_total", { route: "/api/v1/me", status: "429" })
        ).toBe(5)
      })
    )
  }
)

layer(TestServerWith({}, { METRICS_ON_MAIN_PORT: "true" }), { excludeTestServices: true, timeout: 60_000 })(
  "metrics on the API's port",
  (it) => {
    it.effect("GET /metrics answers without a key when the setting says so, and counts itself", () =>
      Effect.gen(function* () {
        const { url, metricsUrl } = yield* TestServer
        expect(metricsUrl).toBeUndefined()
        const first = yield* scrape(url)
        const second = yield* scrape(url)
        const labels = { route: "/metrics", method: "GET", status: "200" }
        expect(
          second.value("http_server_requests_total", labels) - first.value("http_server_requests_total", labels)
        ).toBe(1)
      })
    )
  }
)

/**
 * While a gate is set, every statement the server runs waits at it on the connection it was given (on
 * PostgreSQL with the `sql` override, a connection of the pool taken for the statement's run).
 */
const gated = { gate: undefined as Deferred.Deferred<void> | undefined, waiting: 0 }
const atGate = <A, E>(run: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.suspend(() => {
    const gate = gated.gate
    if (gate === undefined) return run
    gated.waiting++
    return Effect.andThen(Deferred.await(gate), run)
  })
const gatedConnection = (conn: SqlConnection.Connection): SqlConnection.Connection =>
  StatementHook.aroundStatements(conn, (_sql, _params, run) => atGate(run))
const GatedServer = TestServerWith({ sql: gatedConnection }, { METRICS_PORT: "0", JOB_POLL_MILLISECONDS: "50" })

layer(GatedServer, { excludeTestServices: true, timeout: 60_000 })("database pool gauges", (it) => {
  it.effect(
    testDatabase === "postgres"
      ? "the PostgreSQL pool's connections in use, idle and waiting are read at each scrape"
      : "SQLite has no pool: no pool series",
    () =>
      Effect.gen(function* () {
        const metricsUrl = yield* metricsUrlOf
        const before = yield* scrape(metricsUrl)
        if (testDatabase !== "postgres") {
          expect(before.samples("db_pool_connections")).toBe(0)
          expect(before.samples("db_pool_waiting_requests")).toBe(0)
          return
        }
        const { url, tenant, config } = yield* TestServer
        const max = config.postgres!.poolSize
        const token = yield* (yield* tenant()).key(scopes)
        expect(before.value("db_pool_max_connections")).toBe(max)
        expect(before.value("db_pool_waiting_requests")).toBe(0)
        // Every connection held by a statement at the gate, and more requests waiting for one.
        const gate = yield* Deferred.make<void>()
        gated.waiting = 0
        gated.gate = gate
        const requests = yield* Effect.forkChild(
          Effect.all(
            Array.from({ length: max + 2 }, () => call(url, "GET", "/products?limit=1", { token })),
            { concurrency: "unbounded" }
          )
        )
        while (gated.waiting < max) yield* Effect.sleep("20 millis")
        yield* Effect.sleep("100 millis")
        // The scrape reads the pool first, then waits for a connection for the queue gauges.
        const saturated = yield* Effect.forkChild(scrape(metricsUrl))
        yield* Effect.sleep("300 millis")
        gated.gate = undefined
        yield* Deferred.succeed(gate, undefined)
        const during = yield* Fiber.join(saturated)
        for (const answer of yield* Fiber.join(requests)) expect(answer.status).toBe(200)
        expect(during.value("db_pool_connections", { state: "in_use" })).toBe(max)
        expect(during.value("db_pool_connections", { state: "idle" })).toBe(0)
        expect(during.value("db_pool_waiting_requests")).toBeGreaterThanOrEqual(1)
        const after = yield* scrape(metricsUrl)
        expect(after.value("db_pool_waiting_requests")).toBe(0)
        expect(after.value("db_pool_connections", { state: "in_use" })).toBeLessThan(max)
        expect(after.value("db_pool_connections")).toBeLessThanOrEqual(max)
      })
  )
})
