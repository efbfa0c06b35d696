import { Migrations, layer as sqlPorts } from "@catalog-sync/adapter-sql"
import { Migrations as PgMigrations } from "@catalog-sync/adapter-pg"
import { Migrations as SqliteMigrations } from "@catalog-sync/adapter-sqlite"
import { Admin, Ids } from "@catalog-sync/core"
import { InMemory } from "@catalog-sync/core/memory"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { databaseFile } from "../src/Server.js"
import type { ServerConfig } from "../src/ServerConfig.js"
import { at, idOf, records, str } from "./Json.js"
import { call, TestServer, TestServerLive, TestServerWith, testDatabase } from "./TestServer.js"

const writer = ["catalog:read", "catalog:write"]

/** A tenant's cursors over its own writes: the first list's change_cursor, then a feed poll's next_cursor per write. */
const cursorsOf = (url: string, token: string, writes: (n: number) => Effect.Effect<unknown>) =>
  Effect.gen(function* () {
    const cursors = [str((yield* call(url, "GET", "/categories?limit=1", { token })).body, "change_cursor")]
    for (let n = 1; n <= 3; n++) {
      yield* writes(n)
      const page = yield* call(url, "GET", `/changes?cursor=${cursors[0]}&limit=100`, { token })
      cursors.push(str(page.body, "next_cursor"))
    }
    return cursors
  })

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })(
  `change-feed positions per company on ${testDatabase}`,
  (it) => {
    it.effect("a company's cursors are the same whatever other companies write meanwhile", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const [a, b, alone] = [yield* tenant(), yield* tenant(), yield* tenant()]
        const [tokenA, tokenB, tokenAlone] = [yield* a.key(writer), yield* b.key(writer), yield* alone.key(writer)]
        const upsert = (token: string, externalId: string) =>
          call(url, "POST", "/categories/upsert", { token, body: { external_id: externalId, name: externalId } }).pipe(
            Effect.tap((reply) => Effect.sync(() => expect(reply.status).toBe(200)))
          )
        // Between each of A's writes another company writes twice, as in the report (`c1_f` -> `c1_i`).
        const interleaved = yield* cursorsOf(url, tokenA, (n) =>
          Effect.all([upsert(tokenA, `a-${n}`), upsert(tokenB, `b-${n}-1`), upsert(tokenB, `b-${n}-2`)])
        )
        const lone = yield* cursorsOf(url, tokenAlone, (n) => upsert(tokenAlone, `a-${n}`))
        expect(interleaved).toEqual(lone)
        expect(new Set(interleaved).size).toBe(4)
        // An empty page keeps its cursor while others write.
        yield* upsert(tokenB, "b-later")
        const empty = yield* call(url, "GET", `/changes?cursor=${interleaved[3]}`, { token: tokenA })
        expect(empty.body).toMatchObject({ records: [], next_cursor: interleaved[3], has_more: false })
      })
    )
  }
)

/**
 * A database as the version before per-company positions left it: migrated up to 0012, with company A's
 * changes numbered 1, 4 and 6 in the one global sequence, between company B's 2, 3 and 5 — as the
 * `c1_` cursors A's connector persisted count them.
 */
const before = { migrations: "0013_company_change_positions", a: [1, 4, 6] as ReadonlyArray<number> }
const seeded = { token: "", companyId: "" }

const earlierVersion = (config: ServerConfig) =>
  Effect.gen(function* () {
    const engine: {
      readonly client: Layer.Layer<SqlClient.SqlClient, unknown>
      readonly migrations: Pick<typeof PgMigrations, "migrations">
    } =
      config.postgres === undefined
        ? { client: SqliteClient.layer({ filename: databaseFile(config) }), migrations: SqliteMigrations }
        : { client: PgClient.layer({ url: config.postgres.url }), migrations: PgMigrations }
    const database = yield* Layer.build(engine.client)
    const earlier = Object.fromEntries(
      Object.entries(engine.migrations.migrations).filter(([name]) => name < before.migrations)
    )
    yield* Migrator.make({})({ loader: Migrator.fromRecord(earlier), table: Migrations.migrationsTable }).pipe(
      Effect.provide(database)
    )
    const admin = Context.get(
      yield* Layer.build(
        Admin.Admin.Default.pipe(
          // That version had no audit log table: its entries are kept in memory.
          Layer.provide(InMemory.peopleLayer),
          Layer.provide(sqlPorts),
          Layer.provide(Ids.IdsLive),
          Layer.provide(Layer.succeedContext(database))
        )
      ),
      Admin.Admin
    )
    const company = yield* admin.createCompany({
      name: "Before",
      currency: "EUR",
      main_language: "en",
      tax_model: "exclusive",
      tax_rates: ["20"],
      storage_slug: `before-${Date.now()}`,
      granted_scopes: writer
    })
    const connection = yield* admin.createConnection(company.id, "ERP")
    const key = yield* admin.createKey({ connection_id: connection.id, scopes: writer, lifetime_days: 30 })
    Object.assign(seeded, { token: key.token, companyId: company.id })
    const other = globalThis.crypto.randomUUID()
    const sql = Context.get(database, SqlClient.SqlClient)
    for (let position = 1; position <= 6; position++) {
      const owner = before.a.includes(position) ? company.id : other
      yield* sql`INSERT INTO changes (company_id, resource, record_id, revision, operation, origin_connection_id, at, visibility)
                 VALUES (${owner}, 'categories', ${globalThis.crypto.randomUUID()}, 1, 'created', ${connection.id}, ${`change ${position}`}, 1)`
    }
  }).pipe(Effect.scoped)

describe("upgrade to per-company positions", () => {
  layer(TestServerWith({}, {}, { seed: earlierVersion }), { excludeTestServices: true, timeout: 60_000 })(
    `cursors issued before it on ${testDatabase}`,
    (it) => {
      it.effect("a c1_ cursor persisted before the upgrade reads on from the same change; new cursors follow", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const token = seeded.token
          const feed = (cursor: string) =>
            call(url, "GET", `/changes?cursor=${cursor}&limit=10`, { token }).pipe(
              Effect.map((reply) => ({
                at: records(reply.body).map((r) => r.at),
                next: str(reply.body, "next_cursor")
              }))
            )
          // Each of the old global positions, as a cursor A's connector could have saved.
          const expected: Array<[string, ReadonlyArray<number>]> = [
            ["c1_0", [1, 4, 6]],
            ["c1_1", [4, 6]],
            ["c1_2", [4, 6]],
            ["c1_3", [4, 6]],
            ["c1_4", [6]],
            ["c1_5", [6]],
            ["c1_6", []],
            ["c1_zz", []]
          ]
          for (const [cursor, changes] of expected) {
            expect([cursor, yield* feed(cursor)]).toEqual([
              cursor,
              { at: changes.map((position) => `change ${position}`), next: "c2_3" }
            ])
          }
          expect(yield* feed("c2_1")).toEqual({ at: ["change 4", "change 6"], next: "c2_3" })
          // The next change continues the company's sequence (on PostgreSQL: from the head the upgrade set).
          const write = yield* call(url, "POST", "/categories/upsert", {
            token,
            body: { external_id: "after", name: "After" }
          })
          expect(write.status).toBe(200)
          const after = yield* call(url, "GET", "/changes?cursor=c1_6", { token })
          expect(records(after.body).map((r) => r.id)).toEqual([idOf(write.body)])
          expect(at(after.body, "next_cursor")).toBe("c2_4")
          expect(at((yield* call(url, "GET", "/categories?limit=1", { token })).body, "change_cursor")).toBe("c2_4")
        })
      )
    }
  )
})
