import { join } from "node:path"
import { AccountsCache, ChangeLog, type Ids, Transactor } from "@catalog-sync/core"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option } from "effect"
import * as SqliteAccountsVersion from "../src/SqliteAccountsVersion.js"
import { layer as sqliteLayer, SqliteChangeHead, SqliteCommits } from "../src/index.js"
import { companyId, connectionId, recordId } from "./fixtures.js"
import { tempDir } from "./support.js"

/** Two instances of the ports on one database file, as the server and the admin CLI are. */
const twoInstances = Effect.gen(function* () {
  const filename = join(yield* tempDir, "catalog.db")
  const open = () => Layer.build(sqliteLayer({ filename }))
  return [yield* open(), yield* open()] as const
})

const entry = (company: Ids.CompanyId): ChangeLog.ChangeEntry => ({
  companyId: company,
  resource: "products",
  recordId: recordId(),
  revision: 1,
  operation: "created",
  originConnectionId: connectionId(),
  at: "2026-01-01T00:00:00.000Z"
})

const appendOn = (instance: Context.Context<never>, company: Ids.CompanyId) =>
  Effect.flatMap(ChangeLog.ChangeLog, (log) => log.append(entry(company))).pipe(
    Effect.provide(instance as Context.Context<ChangeLog.ChangeLog>)
  )

const versionOf = (instance: Context.Context<never>) =>
  Context.get(instance as Context.Context<SqliteCommits.SqliteCommits>, SqliteCommits.SqliteCommits).current()

/** A change log whose head answers from a counter, counting its reads. */
const countingLog = () => {
  const counts = { reads: 0, head: 0 }
  const log = ChangeLog.ChangeLog.of({
    append: () => Effect.void,
    appendMany: () => Effect.void,
    read: () => Effect.succeed([]),
    head: () =>
      Effect.sync(() => {
        counts.reads++
        return counts.head
      })
  })
  return { counts, layer: Layer.succeed(ChangeLog.ChangeLog, log) }
}

describe("SqliteCommits", () => {
  it.scoped("moves with every commit, of the server's connection or another one, and stays otherwise", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoInstances
      const company = companyId()
      const start = versionOf(a)
      expect(start).toEqual(expect.any(Number))
      expect(versionOf(a)).toBe(start)
      yield* appendOn(a, company)
      const afterOwn = versionOf(a)
      expect(afterOwn).not.toBe(start)
      expect(versionOf(a)).toBe(afterOwn)
      yield* appendOn(b, company)
      expect(versionOf(a)).not.toBe(afterOwn)
    })
  )

  it.scoped("is unknown for an in-memory database", () =>
    Effect.gen(function* () {
      const memory = yield* Layer.build(sqliteLayer({ filename: ":memory:" }))
      expect(versionOf(memory)).toBeUndefined()
    })
  )
})

describe("SqliteChangeHead", () => {
  it.scoped("reads a company's head once while nothing commits, again after any commit, always in a transaction", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoInstances
      const { counts, layer } = countingLog()
      const kept = yield* Layer.build(
        SqliteChangeHead.layer.pipe(Layer.provide(Layer.merge(Layer.succeedContext(a), layer)))
      )
      const head = (company: Ids.CompanyId) =>
        Effect.flatMap(ChangeLog.ChangeLog, (log) => log.head(company)).pipe(Effect.provide(kept))
      const company = companyId()
      const other = companyId()
      counts.head = 7
      expect([yield* head(company), yield* head(company), yield* head(company)]).toEqual([7, 7, 7])
      expect(counts.reads).toBe(1)
      yield* head(other)
      expect(counts.reads).toBe(2)

      // A commit of another connection (the admin CLI, another process), then one of the server's own.
      counts.head = 8
      yield* appendOn(b, company)
      expect(yield* head(company)).toBe(8)
      expect(counts.reads).toBe(3)
      counts.head = 9
      yield* appendOn(a, company)
      expect(yield* head(company)).toBe(9)
      expect(yield* head(company)).toBe(9)
      expect(counts.reads).toBe(4)

      // Inside a transaction its own appends are not committed: the head is read every time.
      const sql = Context.get(a as Context.Context<SqlClient.SqlClient>, SqlClient.SqlClient)
      yield* sql.withTransaction(Effect.zipRight(head(company), head(company)))
      expect(counts.reads).toBe(6)
    })
  )

  it.scoped("over the real log, a head is never older than the last commit of any connection", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoInstances
      const company = companyId()
      const head = Effect.flatMap(ChangeLog.ChangeLog, (log) => log.head(company)).pipe(
        Effect.provide(a as Context.Context<ChangeLog.ChangeLog>)
      )
      expect(yield* head).toBe(0)
      yield* appendOn(b, company)
      expect(yield* head).toBe(1)
      yield* appendOn(a, company)
      expect(yield* head).toBe(2)
      // A transaction that appends and rolls back leaves the head where it was.
      const transactor = Context.get(a as Context.Context<Transactor.Transactor>, Transactor.Transactor)
      const rolledBack = yield* transactor
        .withTransaction(
          Effect.gen(function* () {
            yield* appendOn(a, company)
            expect(yield* head).toBe(3)
            return yield* Effect.fail("roll back" as const)
          })
        )
        .pipe(Effect.exit)
      expect(Exit.isFailure(rolledBack)).toBe(true)
      expect(yield* head).toBe(2)
    })
  )
})

describe("SqliteAccountsVersion", () => {
  it.scoped("keeps its version while nothing commits and sees another connection's commit at once", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoInstances
      const version = yield* Layer.build(SqliteAccountsVersion.layer.pipe(Layer.provide(Layer.succeedContext(a))))
      const current = Context.get(version, AccountsCache.AccountsVersion).current
      const first = yield* current
      expect(Option.isSome(first)).toBe(true)
      expect(yield* current).toEqual(first)
      // The server's own commits go through its cache (which counts them itself): the version stays.
      yield* appendOn(a, companyId())
      expect(yield* current).toEqual(first)
      // Another connection's commit (an administrator's change from the CLI) moves it on the next read.
      yield* appendOn(b, companyId())
      const moved = yield* current
      expect(Option.isSome(moved)).toBe(true)
      expect(moved).not.toEqual(first)
      expect(yield* current).toEqual(moved)
    })
  )
})
