import { join } from "node:path"
import { AccountsCache, CatalogRepository, ChangeLog, type Ids, Transactor } from "@catalog-sync/core"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import * as SqliteAccountsVersion from "../src/SqliteAccountsVersion.js"
import { layer as sqliteLayer, SqliteChangeHead, SqliteCommits } from "../src/index.js"
import { change, companyId, record } from "./fixtures.js"
import { tempDir } from "./support.js"

/** Two instances of the ports on one database file, as the server and the admin CLI are. */
const twoInstances = Effect.gen(function* () {
  const filename = join(yield* tempDir, "catalog.db")
  const open = () => Layer.build(sqliteLayer({ filename }))
  return [yield* open(), yield* open()] as const
})

const appendOn = (instance: Context.Context<never>, company: Ids.CompanyId) =>
  Effect.flatMap(ChangeLog.ChangeLog, (log) => log.append(change(company))).pipe(
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
    fromGlobalPosition: () => Effect.succeed(0),
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
  it.scoped("reads committed heads on the side connection, and the log itself only inside a transaction", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoInstances
      const { counts, layer } = countingLog()
      const kept = yield* Layer.build(
        SqliteChangeHead.layer.pipe(Layer.provide(Layer.merge(Layer.succeedContext(a), layer)))
      )
      const head = (company: Ids.CompanyId) =>
        Effect.flatMap(ChangeLog.ChangeLog, (log) => log.head(company)).pipe(Effect.provide(kept))
      const company = companyId()
      expect([yield* head(company), yield* head(company)]).toEqual([0, 0])
      yield* appendOn(b, company)
      expect(yield* head(company)).toBe(1)
      yield* appendOn(a, company)
      expect([yield* head(company), yield* head(company)]).toEqual([2, 2])
      expect(counts.reads).toBe(0)
      counts.head = 7
      const sql = Context.get(a as Context.Context<SqlClient.SqlClient>, SqlClient.SqlClient)
      expect(yield* sql.withTransaction(Effect.zip(head(company), head(company)))).toEqual([7, 7])
      expect(counts.reads).toBe(2)
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

  it.scoped("outside a transaction, another request's open transaction is not seen, and not waited for", () =>
    Effect.gen(function* () {
      const [a] = yield* twoInstances
      const company = companyId()
      const head = Effect.flatMap(ChangeLog.ChangeLog, (log) => log.head(company)).pipe(
        Effect.provide(a as Context.Context<ChangeLog.ChangeLog>)
      )
      yield* appendOn(a, company)
      const transactor = Context.get(a as Context.Context<Transactor.Transactor>, Transactor.Transactor)
      for (const outcome of ["rolls back", "commits"] as const) {
        const appended = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const writer = yield* transactor
          .withTransaction(
            Effect.gen(function* () {
              yield* appendOn(a, company)
              yield* Deferred.succeed(appended, undefined)
              yield* Deferred.await(release)
              if (outcome === "rolls back") return yield* Effect.fail("roll back" as const)
            })
          )
          .pipe(Effect.exit, Effect.fork)
        yield* Deferred.await(appended)
        // The append is on the server's one connection, not committed: the feed must not pass it yet.
        expect(yield* head).toBe(1)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(writer)
        expect(yield* head).toBe(outcome === "rolls back" ? 1 : 2)
      }
    })
  )
})

describe("reads on the side connection (CommittedReads)", () => {
  const commitsOf = (instance: Context.Context<never>) =>
    Context.get(instance as Context.Context<SqliteCommits.SqliteCommits>, SqliteCommits.SqliteCommits)

  it.scoped("serve queries only, each with its parameters, and leave every other statement to the client", () =>
    Effect.gen(function* () {
      const [a] = yield* twoInstances
      const { read } = commitsOf(a)
      const company = companyId()
      yield* appendOn(a, company)
      expect(read("SELECT company_id, revision FROM changes WHERE company_id = ?", [company])).toEqual([
        { company_id: company, revision: 1 }
      ])
      expect(read("  with c AS (SELECT ? AS v) SELECT v FROM c", [7])).toEqual([{ v: 7 }])
      expect(read("SELECT 1 AS one WHERE 1 = ?", [2])).toEqual([])
      // A pragma would answer for the side connection; a write (even one returning rows) is not a read.
      expect(read("PRAGMA data_version", [])).toBeUndefined()
      expect(read("DELETE FROM changes RETURNING company_position", [])).toBeUndefined()
      expect(read("SELECT * FROM no_such_table", [])).toBeUndefined()
      // A failure to run (a parameter SQLite cannot bind) is left to the client, which reports it.
      expect(read("SELECT ? AS v", [{ not: "bindable" }])).toBeUndefined()
      expect(read("SELECT ? AS v", [3])).toEqual([{ v: 3 }])
      expect(read("SELECT count(*) AS n FROM changes", [])).toEqual([{ n: 1 }])
    })
  )

  it.scoped("the ports read committed data outside a transaction, never another request's open one", () =>
    Effect.gen(function* () {
      const [a] = yield* twoInstances
      const company = companyId()
      const repository = Context.get(
        a as Context.Context<CatalogRepository.CatalogRepository>,
        CatalogRepository.CatalogRepository
      )
      const transactor = Context.get(a as Context.Context<Transactor.Transactor>, Transactor.Transactor)
      const product = record(company)
      for (const outcome of ["rolls back", "commits"] as const) {
        const written = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const writer = yield* transactor
          .withTransaction(
            Effect.gen(function* () {
              yield* repository.insert(product)
              // Inside the transaction its own write is read, on its connection.
              expect(Option.isSome(yield* repository.get(company, "products", product.id))).toBe(true)
              yield* Deferred.succeed(written, undefined)
              yield* Deferred.await(release)
              if (outcome === "rolls back") return yield* Effect.fail("roll back" as const)
            })
          )
          .pipe(Effect.exit, Effect.fork)
        yield* Deferred.await(written)
        // The server's one connection holds the uncommitted row, and a statement through the client waits
        // for its transaction to end; the ports (as the server runs them, tracer off) answer at once from
        // committed data.
        const outside = repository
          .get(company, "products", product.id)
          .pipe(
            Effect.withTracerEnabled(false),
            Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => "waited" })
          )
        expect(Option.isNone(yield* outside)).toBe(true)
        const listed = repository
          .list(company, "products", { limit: 10 })
          .pipe(
            Effect.withTracerEnabled(false),
            Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => "waited" })
          )
        expect(yield* listed).toEqual([])
        yield* Deferred.succeed(release, undefined)
        expect(Exit.isSuccess(yield* Fiber.join(writer))).toBe(outcome === "commits")
        expect(Option.isSome(yield* outside)).toBe(outcome === "commits")
      }
    })
  )

  it.scoped("an in-memory database has no side connection: the ports read through the client", () =>
    Effect.gen(function* () {
      const memory = yield* Layer.build(sqliteLayer({ filename: ":memory:" }))
      const repository = Context.get(
        memory as Context.Context<CatalogRepository.CatalogRepository>,
        CatalogRepository.CatalogRepository
      )
      const product = record(companyId())
      yield* repository.insert(product)
      expect(
        yield* repository.get(product.companyId, "products", product.id).pipe(Effect.withTracerEnabled(false))
      ).toEqual(Option.some(product))
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

  it.scoped("inside a transaction reads through and keeps nothing, so an older snapshot is never kept", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoInstances
      const version = yield* Layer.build(SqliteAccountsVersion.layer.pipe(Layer.provide(Layer.succeedContext(a))))
      const current = Context.get(version, AccountsCache.AccountsVersion).current
      const sql = Context.get(a as Context.Context<SqlClient.SqlClient>, SqlClient.SqlClient)
      const before = yield* current
      // The transaction's first read fixes its snapshot; another connection commits after it.
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT count(*) FROM changes`
          // On the other instance's own connection (@effect/sql would otherwise run it in this transaction).
          yield* appendOn(b, companyId()).pipe(
            Effect.mapInputContext((context: Context.Context<never>) =>
              Context.omit(SqlClient.TransactionConnection)(context)
            )
          )
          expect(yield* current).toEqual(before)
        })
      )
      expect(yield* current).not.toEqual(before)
    })
  )
})
