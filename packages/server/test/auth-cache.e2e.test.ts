/**
 * Authentication reads no SQL while a key's account data is unchanged (keys are cached), yet every
 * administrator's change takes effect on the next request: on one server (SQLite, and PostgreSQL in the
 * second pass), on two server processes sharing one PostgreSQL database, and while an instance's
 * notification listener is down.
 */
import { layer as pgPorts } from "@catalog-sync/adapter-pg"
import { cluster, database, unavailableReason } from "@catalog-sync/adapter-pg/testing"
import { Admin, Ids } from "@catalog-sync/core"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { buildServer, startInstance } from "./Instances.js"
import { at, str } from "./Json.js"
import { call, rawRequest, TestServer, TestServerLive, testDatabase } from "./TestServer.js"

const statusOf = (url: string, token: string, host?: string) =>
  host === undefined
    ? Effect.map(call(url, "GET", "/me", { token }), (reply) =>
        reply.status === 200 ? "200" : `${reply.status} ${at(reply.body, "error", "code")}`
      )
    : // fetch does not let a caller set Host: node:http does.
      Effect.map(rawRequest(url, "GET", "/api/v1/me", { host, authorization: `Bearer ${token}` }), (reply) =>
        reply.status === 200
          ? "200"
          : `${reply.status} ${(JSON.parse(reply.body) as { error?: { code?: string } }).error?.code}`
      )

const warm = (url: string, token: string) =>
  Effect.gen(function* () {
    // Twice: the second answer comes from the cache.
    expect(yield* statusOf(url, token)).toBe("200")
    expect(yield* statusOf(url, token)).toBe("200")
  })

/**
 * What a request answers right after an administrator's change. On SQLite the change is seen by the very
 * next request (the database's version moved when the change committed); on PostgreSQL the version moves
 * when the change's notification arrives, milliseconds after its commit.
 */
const next = (probe: Effect.Effect<string>, expected: string) =>
  testDatabase === "sqlite" ? Effect.map(probe, (status) => expect(status).toBe(expected)) : settlesOne(probe, expected)

const settlesOne = (probe: Effect.Effect<string>, expected: string) =>
  Effect.gen(function* () {
    const started = Date.now()
    for (;;) {
      const status = yield* probe
      if (status === expected) return
      if (Date.now() - started > 1_000) return expect(status).toBe(expected)
      yield* Effect.sleep("5 millis")
    }
  })

const pricesStatus = (url: string, token: string) =>
  Effect.map(call(url, "GET", "/products?mode=prices", { token }), (reply) =>
    reply.status === 200 ? "200" : `${reply.status} ${at(reply.body, "error", "code")}`
  )

layer(TestServerLive, { excludeTestServices: true })("authentication cache on one server", (it) => {
  it.effect(
    "a revoked key, a disabled connection, company or subscription, and a narrowed grant take effect on the next request",
    () =>
      Effect.gen(function* () {
        const { admin, url, tenant } = yield* TestServer
        const t = yield* tenant()
        const revoked = yield* t.key(["catalog:read"])
        yield* warm(url, revoked)
        const keyId = str((yield* call(url, "GET", "/me", { token: revoked })).body, "principal", "key_id")
        yield* admin.revokeKey(keyId)
        yield* next(statusOf(url, revoked), "401 key_revoked")

        const onConnection = yield* t.key(["catalog:read"])
        yield* warm(url, onConnection)
        yield* admin.setConnectionEnabled(t.connectionId, false)
        yield* next(statusOf(url, onConnection), "401 connection_disabled")
        yield* admin.setConnectionEnabled(t.connectionId, true)
        yield* next(statusOf(url, onConnection), "200")

        yield* admin.updateCompany(t.companyId, { subscription_active: false })
        yield* next(statusOf(url, onConnection), "401 subscription_inactive")
        yield* admin.updateCompany(t.companyId, { subscription_active: true, enabled: false })
        yield* next(statusOf(url, onConnection), "401 company_disabled")
        yield* admin.updateCompany(t.companyId, { enabled: true })
        yield* next(statusOf(url, onConnection), "200")

        const reader = yield* t.key(["catalog:read", "prices:read"])
        yield* warm(url, reader)
        expect(yield* pricesStatus(url, reader)).toBe("200")
        yield* admin.revokeScopes(t.companyId, ["prices:read"])
        yield* next(pricesStatus(url, reader), "403 insufficient_scope")
      })
  )

  it.effect("a custom domain given to another company is refused to this company's cached key at once", () =>
    Effect.gen(function* () {
      const { admin, url, tenant } = yield* TestServer
      const a = yield* tenant()
      const b = yield* tenant()
      const token = yield* a.key(["catalog:read"])
      const host = `api-${Date.now()}.acme.example`
      expect(yield* statusOf(url, token, host)).toBe("200")
      expect(yield* statusOf(url, token, host)).toBe("200")
      yield* admin.updateCompany(b.companyId, { domains: [host] })
      yield* next(statusOf(url, token, host), "403 domain_not_permitted")
    })
  )
})

const skip = unavailableReason()

/** Two server processes on one PostgreSQL database, the admin use cases and a SQL client on it. */
class TwoInstances extends Context.Service<
  TwoInstances,
  { readonly a: string; readonly b: string; readonly admin: Admin.Admin["Service"]; readonly sql: SqlClient.SqlClient }
>()("TwoInstances") {}

const TwoInstancesLive = Layer.effect(
  TwoInstances,
  Effect.gen(function* () {
    const url = yield* Effect.flatMap(cluster, database)
    const bundle = yield* buildServer
    const env = { DATABASE_URL: url, JOB_WORKERS: "0" }
    const [a, b] = yield* Effect.all([startInstance(bundle, env), startInstance(bundle, env)], { concurrency: 2 })
    const context = yield* Layer.build(
      Layer.mergeAll(Admin.Admin.Default.pipe(Layer.provide(Ids.IdsLive)), Layer.empty).pipe(
        Layer.provideMerge(pgPorts({ url: Redacted.make(url), poolSize: 2 }))
      )
    )
    return {
      a: a.url,
      b: b.url,
      admin: Context.get(context, Admin.Admin),
      sql: Context.get(context, SqlClient.SqlClient)
    }
  })
)

const newKey = (admin: Admin.Admin["Service"]) =>
  Effect.gen(function* () {
    const company = yield* admin.createCompany({
      name: "Acme",
      currency: "EUR",
      main_language: "en",
      storage_slug: `cache-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      granted_scopes: ["catalog:read"]
    })
    const connection = yield* admin.createConnection(company.id, "ERP")
    const created = yield* admin.createKey({ connection_id: connection.id, scopes: ["catalog:read"], lifetime_days: 1 })
    return { token: created.token, keyId: created.key.id, connectionId: connection.id as string }
  })

/** Until every instance answers `expected` (a notification travels between processes), within a bound. */
const settles = (urls: ReadonlyArray<string>, token: string, expected: string, withinMillis: number) =>
  Effect.gen(function* () {
    const started = Date.now()
    for (;;) {
      const statuses = yield* Effect.forEach(urls, (url) => statusOf(url, token))
      if (statuses.every((status) => status === expected)) return Date.now() - started
      if (Date.now() - started > withinMillis)
        return yield* Effect.die(new Error(`after ${withinMillis} ms: ${statuses.join(", ")}`))
      yield* Effect.sleep("5 millis")
    }
  })

describe.skipIf(skip !== undefined)("authentication cache on several instances", () => {
  layer(TwoInstancesLive, { excludeTestServices: true, timeout: 120_000 })(
    "two server processes on one PostgreSQL database",
    (it) => {
      it.effect(
        "a key revoked through the database is refused by both instances within milliseconds (the notification's trip)",
        () =>
          Effect.gen(function* () {
            const { a, admin, b } = yield* TwoInstances
            const key = yield* newKey(admin)
            yield* warm(a, key.token)
            yield* warm(b, key.token)
            yield* admin.revokeKey(key.keyId)
            const millis = yield* settles([a, b], key.token, "401 key_revoked", 1_000)
            expect(millis).toBeLessThan(1_000)
          })
      )

      it.effect(
        "with the listening connections cut, each instance reads keys from the database again: a revocation is refused at once",
        () =>
          Effect.gen(function* () {
            const { a, admin, b, sql } = yield* TwoInstances
            const key = yield* newKey(admin)
            yield* warm(a, key.token)
            yield* warm(b, key.token)
            const cut = yield* sql<{
              readonly pid: number
            }>`SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity
          WHERE application_name LIKE '%(accounts listener)' AND pid <> pg_backend_pid()`
            expect(cut.length).toBeGreaterThanOrEqual(2)
            // The instances see their connection close at once; the revocation's notification reaches nobody.
            yield* Effect.sleep("50 millis")
            yield* admin.revokeKey(key.keyId)
            expect(yield* statusOf(a, key.token)).toBe("401 key_revoked")
            expect(yield* statusOf(b, key.token)).toBe("401 key_revoked")
            // The listeners come back and caching resumes, still exact.
            const second = yield* newKey(admin)
            yield* Effect.sleep("1500 millis")
            yield* warm(a, second.token)
            yield* admin.setConnectionEnabled(second.connectionId, false)
            yield* settles([a, b], second.token, "401 connection_disabled", 1_000)
          })
      )
    }
  )
})
