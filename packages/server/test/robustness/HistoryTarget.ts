import { layer as pgPorts } from "@catalog-sync/adapter-pg"
import { cluster, database } from "@catalog-sync/adapter-pg/testing"
import { Admin, Ids } from "@catalog-sync/core"
import { expect } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { buildServer, startInstance } from "../Instances.js"
import { latencyProxy } from "../LatencyProxy.js"
import { at, num, records, str } from "../Json.js"
import { TestServer, TestServerWith } from "../TestServer.js"
import type { Attempt, LogicalWrite, Observed } from "./History.js"

/** Where the clients write: one or more server URLs over one database, and a fresh company's keys. */
export class Target extends Context.Service<
  Target,
  { readonly urls: ReadonlyArray<string>; readonly keys: (n: number) => Effect.Effect<ReadonlyArray<string>, unknown> }
>()("Target") {}

const scopes = ["catalog:read", "catalog:write"]
// The documented rate limits have their own tests; here they would only turn writes into 429s.
const unlimited = { BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000" }

/** One server in this process, on the engine of the pass (SQLite, or PostgreSQL with TEST_DATABASE=postgres). */
export const OneServer = Layer.effect(
  Target,
  Effect.map(TestServer, ({ url, tenant }) => ({
    urls: [url],
    keys: (n: number) => Effect.flatMap(tenant(), (t) => Effect.all(Array.from({ length: n }, () => t.key(scopes))))
  }))
).pipe(Layer.provide(TestServerWith({}, unlimited)))

/**
 * `count` server processes (the bundle `npm start` runs) on one throwaway PostgreSQL database. With
 * `latencyMillis` they reach the database through a proxy that adds that much each way, as across a network.
 */
export const postgresInstances = (count: number, options: { readonly latencyMillis?: number } = {}) =>
  Layer.effect(
    Target,
    Effect.gen(function* () {
      const url = yield* Effect.flatMap(cluster, database)
      const bundle = yield* buildServer
      const reached = options.latencyMillis === undefined ? url : (yield* latencyProxy(url, options.latencyMillis)).url
      const env = { DATABASE_URL: reached, ...unlimited }
      const instances = yield* Effect.all(
        Array.from({ length: count }, () => startInstance(bundle, env)),
        { concurrency: count }
      )
      const admin = Context.get(
        yield* Layer.build(
          Admin.Admin.Default.pipe(
            Layer.provide(pgPorts({ url: Redacted.make(url), poolSize: 2 })),
            Layer.provide(Ids.IdsLive)
          )
        ),
        Admin.Admin
      )
      let companies = 0
      const keys = (n: number) =>
        Effect.gen(function* () {
          const company = yield* admin.createCompany({
            name: "Acme",
            currency: "EUR",
            main_language: "en",
            storage_slug: `history-${++companies}-${Date.now()}`,
            granted_scopes: scopes
          })
          const connection = yield* admin.createConnection(company.id, "ERP")
          return yield* Effect.all(
            Array.from({ length: n }, () =>
              Effect.map(
                admin.createKey({ connection_id: connection.id, scopes, lifetime_days: 1 }),
                (k) => k.token as string
              )
            )
          )
        })
      return { urls: instances.map((instance) => instance.url), keys }
    })
  )

/** Two server processes on one throwaway PostgreSQL database. */
export const TwoPostgresInstances = postgresInstances(2)

export interface Wire {
  readonly status: number
  /** The parsed JSON, read through ../Json.ts. */
  readonly body: unknown
}

/** One raw request; `undefined` when the client stopped waiting (the outcome is unknown). */
export const send = async (
  url: string,
  token: string,
  method: string,
  path: string,
  body: unknown,
  key: string | undefined,
  timeoutMillis: number
): Promise<Wire | undefined> => {
  try {
    const response = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...(key === undefined ? {} : { "idempotency-key": key })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMillis)
    })
    const answer: unknown = await response.json()
    return { status: response.status, body: answer }
  } catch (error) {
    if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError"))
      return undefined
    throw error
  }
}

/** A read, repeated on 503 (database busy) as the spec asks of clients; what else it answers is returned. */
export const read = async (url: string, token: string, path: string, busy: { count: number }): Promise<Wire> => {
  for (let attempt = 1; ; attempt++) {
    const reply = await send(url, token, "GET", path, undefined, undefined, 10_000)
    if (reply === undefined) throw new Error(`GET ${path} was not answered within 10 s`)
    if (reply.status !== 503 || attempt >= 10) return reply
    busy.count++
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt))
  }
}

/** An answer to a write as an attempt of the history. */
export const outcomeOf = (reply: Wire, invokedAt: number, completedAt: number): Attempt => {
  if (reply.status === 200) {
    return {
      type: "ok",
      revision: num(reply.body, "record", "revision"),
      name: str(reply.body, "record", "name"),
      replayed: at(reply.body, "replayed") === true,
      updatedAt: str(reply.body, "record", "updated_at"),
      invokedAt,
      completedAt
    }
  }
  // 503 (database busy, rolled back) is the one 5xx the spec allows: the client retries with the same key.
  expect(reply.status === 503 || reply.status < 500, JSON.stringify(reply.body)).toBe(true)
  const current = at(reply.body, "error", "details", "current_revision")
  return {
    type: "fail",
    status: reply.status,
    code: str(reply.body, "error", "code"),
    ...(typeof current === "number" ? { current } : {}),
    invokedAt,
    completedAt
  }
}

/** A client of a history run: its seeded choices, its key, and the revision it last saw of each record. */
export interface HistoryClient {
  readonly c: number
  readonly next: () => number
  readonly token: string
  readonly known: Map<string, number>
}

/** What a client learns of a record's revision from an attempt. */
export const learn = (client: HistoryClient, record: string, outcome: Attempt) => {
  if (outcome.type === "ok") client.known.set(record, outcome.revision)
  if (outcome.type === "fail" && outcome.code === "revision_conflict" && outcome.current !== undefined)
    client.known.set(record, outcome.current)
}

/**
 * The client's w-th write: one of the records (by external id, mapped to `ids`) at random, from a fresh
 * read of its revision mostly, sometimes from one read earlier (a stale one, as a slow client has), with
 * a value no other write uses.
 */
export const nextWrite = async (
  client: HistoryClient,
  w: number,
  url: string,
  ids: ReadonlyMap<string, string>,
  keyPrefix: string,
  busy: { count: number }
) => {
  const externalIds = [...ids.keys()]
  const record = externalIds[Math.floor(client.next() * externalIds.length)]!
  if (!client.known.has(record) || client.next() < 0.7) {
    const found = await read(url, client.token, `/categories?external_id=${record}`, busy)
    expect(found.status, JSON.stringify(found.body)).toBe(200)
    client.known.set(record, num(found.body, "records", 0, "revision"))
  }
  const write: LogicalWrite = {
    key: `${keyPrefix}-${client.c}-${w}-${Date.now()}`,
    record: ids.get(record)!,
    expected: client.known.get(record)!,
    value: `${record} by ${client.c}.${w}`,
    attempts: []
  }
  return { record, write, body: { external_id: record, name: write.value, expected_revision: write.expected } }
}

/** The records the clients update, created through the API, and a feed cursor taken before them. */
export const createRecords = (
  urls: ReadonlyArray<string>,
  admin: string,
  externalIds: ReadonlyArray<string>,
  keyPrefix: string
) =>
  Effect.gen(function* () {
    const start = str(
      (yield* Effect.promise(() => send(urls[0]!, admin, "GET", "/categories", undefined, undefined, 10_000)))?.body,
      "change_cursor"
    )
    const ids = new Map<string, string>()
    const initial = new Map<string, string>()
    for (const record of externalIds) {
      const created = (yield* Effect.promise(() =>
        send(
          urls[0]!,
          admin,
          "POST",
          "/categories/upsert",
          { external_id: record, name: `${record} initial` },
          `${keyPrefix}-${record}`,
          10_000
        )
      ))!
      expect(created.status).toBe(200)
      const id = str(created.body, "record", "id")
      ids.set(record, id)
      initial.set(id, `${record} initial`)
    }
    return { start, ids, initial }
  })

/** What the server holds once the clients are done: every record, and the whole change feed from `start` (pages of 7, alternating instances). */
export const observe = (
  urls: ReadonlyArray<string>,
  admin: string,
  created: {
    readonly start: string
    readonly ids: ReadonlyMap<string, string>
    readonly initial: ReadonlyMap<string, string>
  },
  busy: { count: number }
) =>
  Effect.gen(function* () {
    const held = new Map<string, { revision: number; name: string; initial: string }>()
    for (const [record, id] of created.ids) {
      const stored = (yield* Effect.promise(() => read(urls[urls.length - 1]!, admin, `/categories/${id}`, busy))).body
      held.set(id, {
        revision: num(stored, "record", "revision"),
        name: str(stored, "record", "name"),
        initial: created.initial.get(id)!
      })
      expect(at(stored, "record", "external_id")).toBe(record)
    }
    const feed: Array<{ id: string; revision: number }> = []
    let cursor = created.start
    for (let page = 0; page < 10_000; page++) {
      const reply = yield* Effect.promise(() =>
        read(urls[page % urls.length]!, admin, `/changes?cursor=${cursor}&limit=7`, busy)
      )
      expect(reply.status).toBe(200)
      feed.push(...records(reply.body).map((r) => ({ id: str(r, "id"), revision: num(r, "revision") })))
      cursor = str(reply.body, "next_cursor")
      if (at(reply.body, "has_more") !== true) break
    }
    return { records: held, feed } satisfies Observed
  })
