import * as PgTesting from "@catalog-sync/adapter-pg/testing"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { buildServer, crashableInstance, runCli } from "../Instances.js"
import { asArray, at, type JsonObject, num, records, str } from "../Json.js"
import { testDatabase } from "../TestServer.js"
import { type Attempt, checkHistory, type LogicalWrite } from "./History.js"
import { random, scaled, seed } from "./Soak.js"

interface Wire {
  readonly status: number
  /** The parsed JSON, read through ../Json.ts. */
  readonly body: unknown
}

/** One request; `undefined` when the connection failed or timed out (the server died under it). */
const send = async (
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  key?: string
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
      signal: AbortSignal.timeout(15_000)
    })
    const answer: unknown = await response.json()
    return { status: response.status, body: answer }
  } catch {
    return undefined
  }
}

/** `current_revision` of a revision conflict's error body, when it has one. */
const currentRevisionOf = (body: unknown): { readonly current?: number } => {
  const current = at(body, "error", "details", "current_revision")
  return typeof current === "number" ? { current } : {}
}

const pause = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/**
 * Sends one logical request until it settles, as a careful client does: the same Idempotency-Key after a
 * lost connection (the server was killed), a 503, `idempotency_in_progress` or a 429 (the connection's
 * 20 pending jobs). `onUnknown` sees each attempt whose outcome the client could not learn.
 */
const settle = async (
  url: string,
  token: string,
  method: string,
  path: string,
  body: unknown,
  key: string,
  onUnknown: () => void = () => {}
): Promise<Wire> => {
  const deadline = Date.now() + 60_000
  for (;;) {
    const reply = await send(url, token, method, path, body, key)
    if (reply === undefined) onUnknown()
    else if (
      reply.status === 503 ||
      reply.status === 429 ||
      at(reply.body, "error", "code") === "idempotency_in_progress"
    )
      void 0
    else return reply
    if (Date.now() > deadline) throw new Error(`${method} ${path} (key ${key}) did not settle within 60 s`)
    await pause(50)
  }
}

/** Every record of a list or every change of the feed, following next_cursor. */
const everything = async (url: string, token: string, path: string) => {
  const out: Array<JsonObject> = []
  let cursor: string | null = null
  for (;;) {
    const reply = await settle(
      url,
      token,
      "GET",
      `${path}${path.includes("?") ? "&" : "?"}limit=100${cursor === null ? "" : `&cursor=${cursor}`}`,
      undefined,
      "unused-read-key"
    )
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    out.push(...records(reply.body))
    // The last page of a list has no next_cursor.
    if (at(reply.body, "has_more") !== true) return out
    cursor = str(reply.body, "next_cursor")
  }
}

const scopes = "catalog:read,catalog:write,stock:read,stock:write"
const historyRecords = ["r0", "r1", "r2"]

/**
 * Clients write while the server is SIGKILLed at seeded moments and started again on the same data:
 * revisioned category updates (the concurrency history), imports of new categories, and stock `in`
 * movements (one card per client, so each card has one writer). Every request is settled with its own
 * Idempotency-Key across the crashes. Afterwards: every acknowledged write is there and none twice, the
 * feed holds every revision of every record exactly once, every job ended, stock balances are the sums
 * of their movements, and (SQLite) the database file passes `PRAGMA integrity_check`.
 */
const crashRun = Effect.gen(function* () {
  const used = seed(22_2026)
  const kills = scaled(3, 12)
  const clients = scaled(4, 8)
  console.log(
    `crash test (${testDatabase}): seed ${used}, ${kills} kills, ${clients} clients (SOAK_SEED=${used} replays the choices)`
  )
  const next = random(used)
  const bundle = yield* buildServer
  const dataDir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-sync-crash-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    ...(testDatabase === "postgres" ? { DATABASE_URL: yield* PgTesting.freshDatabase } : {}),
    JOB_POLL_MILLISECONDS: "50",
    // PostgreSQL instances cannot tell a dead holder from a slow one, so they wait out leases: short ones here.
    JOB_LEASE_SECONDS: "2",
    IDEMPOTENCY_LEASE_SECONDS: "2",
    BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000"
  }
  const company = yield* runCli(bundle, env, [
    "company",
    "create",
    "--name",
    "Crash",
    "--currency",
    "EUR",
    "--main-language",
    "en",
    "--storage-slug",
    "crash",
    "--scopes",
    scopes,
    "--stock-package",
    "on",
    "--inventory-module",
    "on"
  ])
  const connection = yield* runCli(bundle, env, [
    "connection",
    "create",
    "--company",
    str(company, "id"),
    "--name",
    "ERP"
  ])
  const locationId = str(
    yield* runCli(bundle, env, ["location", "create", "--company", str(company, "id"), "--name", "Warehouse"]),
    "id"
  )
  yield* runCli(bundle, env, [
    "location",
    "assign",
    "--connection",
    str(connection, "id"),
    "--location",
    locationId,
    "--writable",
    "on"
  ])
  const tokens: Array<string> = []
  for (let i = 0; i <= clients; i++)
    tokens.push(
      str(
        yield* runCli(bundle, env, [
          "key",
          "create",
          "--connection",
          str(connection, "id"),
          "--scopes",
          scopes,
          "--days",
          "1"
        ]),
        "token"
      )
    )
  const admin = tokens[clients]!

  const server = yield* crashableInstance(bundle, env)
  yield* server.start
  const url = server.url
  const ids = new Map<string, string>()
  const initial = new Map<string, string>()
  yield* Effect.promise(async () => {
    for (const record of historyRecords) {
      const created = await settle(
        url,
        admin,
        "POST",
        "/categories/upsert",
        { external_id: record, name: `${record} initial` },
        `crash-create-${record}`
      )
      expect(created.status).toBe(200)
      const id = str(created.body, "record", "id")
      ids.set(record, id)
      initial.set(id, `${record} initial`)
    }
    for (let c = 0; c < clients; c++) {
      const product = await settle(
        url,
        admin,
        "POST",
        "/products/upsert",
        { external_id: `s${c}`, name: `Stocked ${c}`, category_ids: [ids.get("r0")] },
        `crash-product-${c}`
      )
      expect(product.status).toBe(200)
    }
  })

  const writes: Array<LogicalWrite> = []
  const imports: Array<{ readonly job: string; readonly externalIds: ReadonlyArray<string> }> = []
  const cards = new Map<number, { id: string; applied: number; revision: number; events: number }>()
  const counts = { requests: 0, unknown: 0, imported: 0, movements: 0 }
  let stopping = false

  const client = async (c: number) => {
    const choose = random(used + 1 + c)
    const token = tokens[c]!
    for (let n = 0; !stopping; n++) {
      const kind = choose()
      const key = `crash-${used}-${c}-${n}`
      if (kind < 0.5) {
        // A revisioned update, recorded for the history check.
        const record = historyRecords[Math.floor(choose() * historyRecords.length)]!
        const read = await settle(url, token, "GET", `/categories/${ids.get(record)}`, undefined, key)
        const write: LogicalWrite = {
          key,
          record: ids.get(record)!,
          expected: num(read.body, "record", "revision"),
          value: `${record} by ${c}.${n}`,
          attempts: []
        }
        writes.push(write)
        const body = { external_id: record, name: write.value, expected_revision: write.expected }
        const invokedAt = performance.now()
        const reply = await settle(url, token, "POST", "/categories/upsert", body, key, () => {
          write.attempts.push({ type: "unknown", invokedAt })
          counts.unknown++
        })
        const completedAt = performance.now()
        const outcome: Attempt =
          reply.status === 200
            ? {
                type: "ok",
                revision: num(reply.body, "record", "revision"),
                name: str(reply.body, "record", "name"),
                replayed: at(reply.body, "replayed") === true,
                updatedAt: str(reply.body, "record", "updated_at"),
                invokedAt,
                completedAt
              }
            : {
                type: "fail",
                status: reply.status,
                code: str(reply.body, "error", "code"),
                ...currentRevisionOf(reply.body),
                invokedAt,
                completedAt
              }
        write.attempts.push(outcome)
        expect(
          reply.status === 200 || at(reply.body, "error", "code") === "revision_conflict",
          JSON.stringify(reply.body)
        ).toBe(true)
      } else if (kind < 0.75) {
        // A stock movement on the client's own card, settled by its event_id and key.
        const card = cards.get(c) ?? { id: "", applied: 0, revision: 0, events: 0 }
        const quantity = 1 + Math.floor(choose() * 5)
        const body = {
          event_id: globalThis.crypto.randomUUID(),
          source_kind: "product",
          source_id: { external_id: `s${c}` },
          location_id: locationId,
          action: "in",
          quantity: String(quantity),
          revision: card.revision,
          note: "delivery"
        }
        const reply = await settle(url, token, "POST", "/inventory", body, key, () => void counts.unknown++)
        expect(reply.status, JSON.stringify(reply.body)).toBe(200)
        const balance = asArray(reply.body, "record", "balances").find((b) => at(b, "location_id") === locationId)
        cards.set(c, {
          id: str(reply.body, "record", "id"),
          applied: card.applied + quantity,
          revision: num(balance, "revision"),
          events: card.events + 1
        })
        counts.movements++
      } else {
        // An import of new categories, with a job that may be cut off mid-way.
        const externalIds = Array.from({ length: 5 + Math.floor(choose() * 20) }, (_, i) => `imp-${c}-${n}-${i}`)
        const records = externalIds.map((external_id) => ({
          resource: "categories",
          body: { external_id, name: external_id }
        }))
        const reply = await settle(url, token, "POST", "/imports", { records }, key, () => void counts.unknown++)
        expect(reply.status, JSON.stringify(reply.body)).toBe(202)
        imports.push({ job: str(reply.body, "job", "id"), externalIds })
        counts.imported += externalIds.length
      }
      counts.requests++
    }
  }

  const load = Effect.all(
    Array.from({ length: clients }, (_, c) => Effect.promise(() => client(c))),
    { concurrency: "unbounded" }
  )
  const killer = Effect.gen(function* () {
    for (let k = 0; k < kills; k++) {
      yield* Effect.sleep(`${300 + Math.floor(next() * 1200)} millis`)
      yield* server.kill
      yield* Effect.sleep(`${Math.floor(next() * 200)} millis`)
      yield* server.start
    }
    yield* Effect.sleep("500 millis")
    stopping = true
  })
  const started = Date.now()
  yield* Effect.all([load, killer], { concurrency: 2 })

  // Every job ends within its lease and a few polls, though a kill may have cut it off mid-way.
  const jobs = yield* Effect.promise(async () => {
    const deadline = Date.now() + 30_000
    const states = new Map<string, string>()
    for (const { job } of imports) {
      for (;;) {
        const reply = await settle(url, admin, "GET", `/jobs/${job}`, undefined, "unused-read-key")
        const state = str(reply.body, "job", "state")
        if (state === "completed" || state === "failed") {
          states.set(job, state)
          break
        }
        if (Date.now() > deadline) throw new Error(`job ${job} still ${state} 30 s after the load`)
        await pause(100)
      }
    }
    return states
  })
  expect([...jobs.values()].every((state) => state === "completed")).toBe(true)

  const [categories, feed, stock] = yield* Effect.promise(() =>
    Promise.all([
      everything(url, admin, "/categories"),
      everything(url, admin, "/changes"),
      everything(url, admin, "/inventory")
    ])
  )
  // Imports: each record exactly once, created once (revision 1), and nothing that was not sent.
  const byExternalId = new Map<unknown, Array<unknown>>()
  for (const category of categories)
    byExternalId.set(category.external_id, [...(byExternalId.get(category.external_id) ?? []), category])
  for (const { externalIds } of imports) {
    for (const externalId of externalIds)
      expect({ externalId, found: (byExternalId.get(externalId) ?? []).map((r) => at(r, "revision")) }).toEqual({
        externalId,
        found: [1]
      })
  }
  expect(categories).toHaveLength(historyRecords.length + counts.imported)

  // The feed: for every record, revisions 1..current, each once and in order.
  const current = new Map<string, number>([
    ...categories.map((r): [string, number] => [str(r, "id"), num(r, "revision")]),
    ...stock.map((card): [string, number] => [
      str(card, "id"),
      Math.max(...asArray(card, "balances").map((b) => num(b, "revision")))
    ])
  ])
  const revisions = new Map<string, Array<number>>()
  for (const change of feed) {
    const id = str(change, "id")
    revisions.set(id, [...(revisions.get(id) ?? []), num(change, "revision")])
  }
  for (const [id, revision] of current) {
    expect({ id, revisions: revisions.get(id) }).toEqual({
      id,
      revisions: Array.from({ length: revision }, (_, i) => i + 1)
    })
  }

  // Stock: each movement applied once, whatever the crashes.
  for (const [c, card] of cards) {
    const stored = stock.find((s) => s.id === card.id)
    expect({
      client: c,
      physical: at(stored, "balances", 0, "physical"),
      revision: at(stored, "balances", 0, "revision")
    }).toEqual({
      client: c,
      physical: String(card.applied),
      revision: card.events
    })
  }

  // The concurrency history of the revisioned updates.
  const final = new Map(
    [...ids.values()].map((id) => {
      const record = categories.find((r) => r.id === id)
      return [id, { revision: num(record, "revision"), name: str(record, "name"), initial: initial.get(id)! }] as const
    })
  )
  const historyFeed = feed
    .map((change) => ({ id: str(change, "id"), revision: num(change, "revision") }))
    .filter((change) => final.has(change.id))
  const { violations, figures } = checkHistory(writes, { records: final, feed: historyFeed })
  expect(violations).toEqual([])

  yield* server.kill
  if (testDatabase === "sqlite") {
    // Read-only, through node:sqlite as the server reads it: opening fails if the file is missing.
    const db = new DatabaseSync(join(dataDir, "catalog-sync.db"), { readOnly: true })
    try {
      expect(db.prepare("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }])
      expect(db.prepare("PRAGMA foreign_key_check").all()).toEqual([])
    } finally {
      db.close()
    }
  }
  console.log(
    `crash test (${testDatabase}): ${JSON.stringify({ kills, seconds: Math.round((Date.now() - started) / 1000), ...counts, jobs: imports.length, changes: feed.length, history: figures })}`
  )
  // The run exercised what it claims: requests cut off by the kills, and every kind of write.
  expect(counts.unknown).toBeGreaterThan(0)
  expect(figures.ok).toBeGreaterThan(0)
  expect(counts.movements).toBeGreaterThan(0)
  expect(imports.length).toBeGreaterThan(0)
})

describe(`crash test on ${testDatabase}`, () => {
  it.live(
    "a server SIGKILLed under mixed write, stock and import load loses no acknowledged write, applies none twice and ends every job",
    () => Effect.scoped(crashRun),
    scaled(120_000, 900_000)
  )
})
