import { layer as pgPorts } from "@catalog-sync/adapter-pg"
import { cluster, database, unavailableReason } from "@catalog-sync/adapter-pg/testing"
import { Admin, Ids } from "@catalog-sync/core"
import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { buildServer, startInstance } from "../Instances.js"
import { TestServer, TestServerLive } from "../TestServer.js"
import { type Attempt, checkHistory, type LogicalWrite } from "./History.js"
import { random, scaled, seed } from "./Soak.js"

/** Where the clients write: one or more server URLs over one database, and a fresh company's keys. */
class Target extends Context.Tag("Target")<Target, { readonly urls: ReadonlyArray<string>; readonly keys: (n: number) => Effect.Effect<ReadonlyArray<string>, unknown> }>() {}

const scopes = ["catalog:read", "catalog:write"]
// The documented rate limits have their own tests; here they would only turn writes into 429s.
const unlimited = { BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000" }

const SqliteTarget = Layer.effect(
  Target,
  Effect.map(TestServer, ({ url, tenant }) => ({
    urls: [url],
    keys: (n: number) => Effect.flatMap(tenant(), (t) => Effect.all(Array.from({ length: n }, () => t.key(scopes))))
  }))
).pipe(Layer.provide(TestServerLive), Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson(unlimited).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv())))))

/** Two server processes (the bundle `npm start` runs) on one throwaway PostgreSQL database. */
const PostgresTarget = Layer.scoped(
  Target,
  Effect.gen(function* () {
    const url = yield* Effect.flatMap(cluster, database)
    const bundle = yield* buildServer
    const env = { DATABASE_URL: url, ...unlimited }
    const [a, b] = yield* Effect.all([startInstance(bundle, env), startInstance(bundle, env)], { concurrency: 2 })
    const admin = Context.get(
      yield* Layer.build(Admin.Admin.Default.pipe(Layer.provide(pgPorts({ url: Redacted.make(url), poolSize: 2 })), Layer.provide(Ids.IdsLive))),
      Admin.Admin
    )
    const keys = (n: number) =>
      Effect.gen(function* () {
        const company = yield* admin.createCompany({ name: "Acme", currency: "EUR", main_language: "en", storage_slug: `history-${Date.now()}`, granted_scopes: scopes })
        const connection = yield* admin.createConnection(company.id, "ERP")
        return yield* Effect.all(Array.from({ length: n }, () => Effect.map(admin.createKey({ connection_id: connection.id, scopes, lifetime_days: 1 }), (k) => k.token as string)))
      })
    return { urls: [a.url, b.url], keys }
  })
)

interface Wire {
  readonly status: number
  readonly body: any
}

/** One raw request; `undefined` when the client stopped waiting (the outcome is unknown). */
const send = async (url: string, token: string, method: string, path: string, body: unknown, key: string | undefined, timeoutMillis: number): Promise<Wire | undefined> => {
  try {
    const response = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(key === undefined ? {} : { "idempotency-key": key }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMillis)
    })
    return { status: response.status, body: await response.json() }
  } catch (error) {
    if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")) return undefined
    throw error
  }
}

/** A read, repeated on 503 (database busy) as the spec asks of clients; what else it answers is returned. */
const read = async (url: string, token: string, path: string, busy: { count: number }): Promise<Wire> => {
  for (let attempt = 1; ; attempt++) {
    const reply = await send(url, token, "GET", path, undefined, undefined, 10_000)
    if (reply === undefined) throw new Error(`GET ${path} was not answered within 10 s`)
    if (reply.status !== 503 || attempt >= 10) return reply
    busy.count++
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt))
  }
}

const records = ["r0", "r1", "r2"]

/**
 * Many clients update a few records at once. Each reads a record (sometimes it keeps a revision it read
 * earlier, so that it races and conflicts), writes a value of its own with that expected_revision, and
 * waits a short random time: a client that gives up retries the same request with the same key, up to
 * three times. Afterwards the history is checked against the records and the whole change feed.
 */
const run = (clients: number, writesPerClient: number, label: string) =>
  Effect.gen(function* () {
    const { urls, keys } = yield* Target
    const used = seed(11_2026)
    console.log(`concurrency history (${label}): seed ${used}, ${clients} clients x ${writesPerClient} writes (SOAK_SEED=${used} replays the choices)`)
    const tokens = yield* keys(clients)
    const admin = tokens[0]!
    const start = (yield* Effect.promise(() => send(urls[0]!, admin, "GET", "/categories", undefined, undefined, 10_000)))!.body.change_cursor as string
    const ids = new Map<string, string>()
    const initial = new Map<string, string>()
    for (const record of records) {
      const created = (yield* Effect.promise(() => send(urls[0]!, admin, "POST", "/categories/upsert", { external_id: record, name: `${record} initial` }, `create-${record}-${used}`, 10_000)))!
      expect(created.status).toBe(200)
      ids.set(record, created.body.record.id)
      initial.set(created.body.record.id, `${record} initial`)
    }

    const writes: Array<LogicalWrite> = []
    const busy = { count: 0 }
    const client = (c: number) =>
      Effect.promise(async () => {
        const next = random(used + c)
        const token = tokens[c]!
        const known = new Map<string, number>()
        for (let w = 0; w < writesPerClient; w++) {
          const url = urls[(c + w) % urls.length]!
          const record = records[Math.floor(next() * records.length)]!
          // Mostly a fresh read; sometimes a revision read earlier (a stale one, as a slow client has).
          if (!known.has(record) || next() < 0.7) {
            const found = await read(url, token, `/categories?external_id=${record}`, busy)
            expect(found.status, JSON.stringify(found.body)).toBe(200)
            known.set(record, found.body.records[0].revision)
          }
          const write: LogicalWrite = { key: `history-${used}-${c}-${w}-${Date.now()}`, record: ids.get(record)!, expected: known.get(record)!, value: `${record} by ${c}.${w}`, attempts: [] }
          writes.push(write)
          const body = { external_id: record, name: write.value, expected_revision: write.expected }
          const attempt = async (n: number, timeout: number) => {
            const invokedAt = performance.now()
            const reply = await send(urls[(c + w + n) % urls.length]!, token, "POST", "/categories/upsert", body, write.key, timeout)
            const completedAt = performance.now()
            let outcome: Attempt
            if (reply === undefined) outcome = { type: "unknown", invokedAt }
            else if (reply.status === 200) {
              outcome = { type: "ok", revision: reply.body.record.revision, name: reply.body.record.name, replayed: reply.body.replayed === true, updatedAt: reply.body.record.updated_at, invokedAt, completedAt }
            } else {
              // 503 (database busy, rolled back) is the one 5xx the spec allows: the client retries with the same key.
              expect(reply.status === 503 || reply.status < 500, JSON.stringify(reply.body)).toBe(true)
              const current = reply.body.error?.details?.current_revision
              outcome = { type: "fail", status: reply.status, code: reply.body.error?.code, ...(typeof current === "number" ? { current } : {}), invokedAt, completedAt }
              if (reply.status === 503) busy.count++
            }
            write.attempts.push(outcome)
            if (outcome.type === "ok") known.set(record, outcome.revision)
            if (outcome.type === "fail" && outcome.code === "revision_conflict" && outcome.current !== undefined) known.set(record, outcome.current)
            return outcome
          }
          for (let n = 0; n < 3; n++) {
            // Short waits leave some outcomes unknown; the last attempt waits long enough to be answered.
            const outcome = await attempt(n, n === 2 ? 10_000 : [3, 8, 20, 10_000][Math.floor(next() * 4)]!)
            // Settled, or else unknown, still running elsewhere (idempotency_in_progress) or database busy
            // (503, rolled back): then the client tries again with the same key.
            if (outcome.type === "ok" || (outcome.type === "fail" && outcome.code !== "idempotency_in_progress" && outcome.status !== 503)) break
            await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 10)))
          }
          // Some clients send an acknowledged write once more, as one that lost the answer would: a replay.
          if (write.attempts.some((a) => a.type === "ok") && next() < 0.15) await attempt(3, 10_000)
        }
      })
    yield* Effect.all(Array.from({ length: clients }, (_, c) => client(c)), { concurrency: "unbounded" })
    // Requests the clients gave up on may still be running on the server: let them finish.
    yield* Effect.sleep("500 millis")

    const final = new Map<string, { revision: number; name: string; initial: string }>()
    for (const [record, id] of ids) {
      const stored = (yield* Effect.promise(() => read(urls[urls.length - 1]!, admin, `/categories/${id}`, busy))).body.record
      final.set(id, { revision: stored.revision, name: stored.name, initial: initial.get(id)! })
      expect(stored.external_id).toBe(record)
    }
    const feed: Array<{ id: string; revision: number }> = []
    let cursor = start
    for (let page = 0; page < 10_000; page++) {
      const reply = yield* Effect.promise(() => read(urls[page % urls.length]!, admin, `/changes?cursor=${cursor}&limit=7`, busy))
      expect(reply.status).toBe(200)
      feed.push(...reply.body.records.map((r: any) => ({ id: r.id, revision: r.revision })))
      cursor = reply.body.next_cursor
      if (!reply.body.has_more) break
    }
    const { violations, figures } = checkHistory(writes, { records: final, feed })
    const codes: Record<string, number> = {}
    for (const attempt of writes.flatMap((w) => w.attempts)) if (attempt.type === "fail") codes[attempt.code] = (codes[attempt.code] ?? 0) + 1
    console.log(`concurrency history (${label}): ${JSON.stringify({ ...figures, busy: busy.count, codes })}`)
    expect(violations).toEqual([])
    // The run exercised what it checks: conflicts, unknown outcomes and replays.
    expect(figures.ok).toBeGreaterThan(records.length)
    expect(figures.fail).toBeGreaterThan(0)
    expect(figures.unknown).toBeGreaterThan(0)
    expect(figures.replays).toBeGreaterThan(0)
    return figures
  })

layer(SqliteTarget, { excludeTestServices: true, timeout: 60_000 })("concurrency history on one server (SQLite)", (it) => {
  it.effect("no acknowledged write lost, one revision chain per record, the feed complete and once, each key executed once", () =>
    Effect.asVoid(run(scaled(8, 24), scaled(12, 80), "SQLite")), scaled(60_000, 900_000))
})

const skip = unavailableReason()
describe.skipIf(skip !== undefined)("concurrency history on PostgreSQL", () => {
  layer(PostgresTarget, { excludeTestServices: true, timeout: 180_000 })("two server processes on one PostgreSQL database", (it) => {
    it.effect("the same checks with the clients spread over both instances", () => Effect.asVoid(run(scaled(8, 24), scaled(12, 80), "2 instances on PostgreSQL")), scaled(120_000, 900_000))
  })
})
