import { join } from "node:path"
import { KeptReads } from "@catalog-sync/adapter-sql"
import { CatalogRepository, ChangeLog, CommitVersion, type Ids, Transactor } from "@catalog-sync/core"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Option, Tracer } from "effect"
import { layer as sqliteLayer, SqliteClient, SqliteCommitVersion } from "../src/index.js"
import { PersistenceFixtures } from "@catalog-sync/core/testing"
import { tempDir } from "./support.js"

const { change, companyId, record } = PersistenceFixtures

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

const versionsOf = (instance: Context.Context<never>) =>
  Context.get(instance as Context.Context<SqliteClient.SqliteDataVersion>, SqliteClient.SqliteDataVersion)

const clientOf = (instance: Context.Context<never>) =>
  Context.get(instance as Context.Context<SqlClient.SqlClient>, SqlClient.SqlClient)

/** `effect` in a transaction of `sql`, forked, held open once `effect` is done until `end` commits it. */
const heldTransaction = (sql: SqlClient.SqlClient, effect: Effect.Effect<unknown, unknown>) =>
  Effect.gen(function* () {
    const opened = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const fiber = yield* sql
      .withTransaction(
        Effect.andThen(effect, Effect.andThen(Deferred.succeed(opened, undefined), Deferred.await(release)))
      )
      .pipe(Effect.exit, Effect.forkChild)
    yield* Deferred.await(opened)
    return { end: Effect.andThen(Deferred.succeed(release, undefined), Fiber.join(fiber)) }
  })

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

describe("SqliteDataVersion", () => {
  it.effect(
    "anyCommit moves with every commit, of the client's writer or another connection, and stays otherwise",
    () =>
      Effect.gen(function* () {
        const [a, b] = yield* twoInstances
        const { anyCommit } = versionsOf(a)
        const company = companyId()
        const start = anyCommit()
        expect(start).toEqual(expect.any(Number))
        expect(anyCommit()).toBe(start)
        yield* appendOn(a, company)
        const afterOwn = anyCommit()
        expect(afterOwn).not.toBe(start)
        expect(anyCommit()).toBe(afterOwn)
        yield* appendOn(b, company)
        expect(anyCommit()).not.toBe(afterOwn)
      })
  )

  it.effect(
    "otherCommits moves with another connection's commits only, and is unknown while a transaction holds the writer",
    () =>
      Effect.gen(function* () {
        const [a, b] = yield* twoInstances
        const { otherCommits } = versionsOf(a)
        const start = yield* otherCommits
        expect(Option.isSome(start)).toBe(true)
        yield* appendOn(a, companyId())
        expect(yield* otherCommits).toEqual(start)
        yield* appendOn(b, companyId())
        const moved = yield* otherCommits
        expect(Option.isSome(moved) && moved.value !== Option.getOrThrow(start)).toBe(true)
        const sql = clientOf(a)
        // Inside a transaction (its own fiber's or another's) the writer would answer for that transaction's snapshot.
        expect(yield* sql.withTransaction(otherCommits)).toEqual(Option.none())
        const open = yield* heldTransaction(sql, sql`SELECT 1`)
        expect(yield* otherCommits).toEqual(Option.none())
        yield* open.end
        expect(yield* otherCommits).toEqual(moved)
      })
  )

  it.effect("is unknown for an in-memory database", () =>
    Effect.gen(function* () {
      const memory = yield* Layer.build(sqliteLayer({ filename: ":memory:" }))
      expect(versionsOf(memory).anyCommit()).toBeUndefined()
    })
  )
})

describe("the change log's heads kept until any commit (KeptReads over SqliteCommitVersion.anyCommit)", () => {
  it.effect("keeps each head while nothing commits, and reads the log itself inside a transaction", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoInstances
      const { counts, layer } = countingLog()
      const kept = yield* Layer.build(
        KeptReads.changeLogLayer.pipe(
          Layer.provide(Layer.merge(SqliteCommitVersion.anyCommit.pipe(Layer.provide(Layer.succeedContext(a))), layer))
        )
      )
      const head = (company: Ids.CompanyId) =>
        Effect.flatMap(ChangeLog.ChangeLog, (log) => log.head(company)).pipe(Effect.provide(kept))
      const company = companyId()
      expect([yield* head(company), yield* head(company)]).toEqual([0, 0])
      expect(counts.reads).toBe(1)
      counts.head = 1
      yield* appendOn(b, company)
      expect([yield* head(company), yield* head(company)]).toEqual([1, 1])
      expect(counts.reads).toBe(2)
      counts.head = 2
      yield* appendOn(a, company)
      expect([yield* head(company), yield* head(company)]).toEqual([2, 2])
      expect(counts.reads).toBe(3)
      counts.head = 7
      const sql = clientOf(a)
      expect(yield* sql.withTransaction(Effect.zip(head(company), head(company)))).toEqual([7, 7])
      expect(counts.reads).toBe(5)
    })
  )

  it.effect("over the real log, a head is never older than the last commit of any connection", () =>
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

  it.live("outside a transaction, another request's open transaction is not seen, and not waited for", () =>
    Effect.gen(function* () {
      const [a] = yield* twoInstances
      const company = companyId()
      const head = Effect.flatMap(ChangeLog.ChangeLog, (log) => log.head(company)).pipe(
        Effect.provide(a as Context.Context<ChangeLog.ChangeLog>),
        Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.fail("waited" as const) })
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
          .pipe(Effect.exit, Effect.forkChild)
        yield* Deferred.await(appended)
        // The append is on the writer, not committed: the feed must not pass it yet.
        expect(yield* head).toBe(1)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(writer)
        expect(yield* head).toBe(outcome === "rolls back" ? 1 : 2)
      }
    })
  )
})

describe("the client's two connections", () => {
  it.effect(
    "queries outside a transaction go to the reader; writes, PRAGMAs and everything in a transaction to the writer",
    () =>
      Effect.gen(function* () {
        const [a] = yield* twoInstances
        const sql = clientOf(a)
        // Foreign keys are set on the writer only: a PRAGMA answers for the connection it runs on.
        expect(yield* sql`PRAGMA foreign_keys`).toEqual([{ foreign_keys: 1 }])
        const company = companyId()
        yield* appendOn(a, company)
        // A write returning rows is no query: the reader (query_only) would refuse it.
        expect(
          yield* sql`DELETE FROM changes WHERE company_id = ${company} RETURNING company_position`.pipe(
            Effect.map((rows) => rows.length)
          )
        ).toBe(1)
        expect(yield* sql`WITH c AS (SELECT ${7} AS v) SELECT v FROM c`).toEqual([{ v: 7 }])
        expect(yield* sql`SELECT ${3} AS v`.values).toEqual([[3]])
        // A statement the reader cannot prepare (a table created in an open transaction) runs in the transaction.
        expect(
          yield* sql.withTransaction(
            Effect.andThen(sql`CREATE TABLE fresh (v INTEGER)`, sql`SELECT count(*) AS n FROM fresh`)
          )
        ).toEqual([{ n: 0 }])
        expect(yield* sql`SELECT count(*) AS n FROM fresh`).toEqual([{ n: 0 }])
        // Failures are the client's usual SqlError, with the driver's error and its SQLite result code.
        const missing = yield* Effect.flip(sql`SELECT * FROM no_such_table`)
        expect(missing._tag).toBe("SqlError")
        const driver = missing.reason.cause as { readonly code?: string; readonly errcode?: number }
        expect([driver.code, driver.errcode]).toEqual(["ERR_SQLITE_ERROR", 1])
      })
  )

  it.effect(
    "with tracing on, every statement is a span named after the database system: reads on the reader and a transaction's alike",
    () =>
      Effect.gen(function* () {
        const [a] = yield* twoInstances
        const sql = clientOf(a)
        const native = yield* Effect.tracer
        const spans: Array<Tracer.Span> = []
        const tracer = Tracer.make({
          span: (...args) => {
            const span = native.span(...args)
            spans.push(span)
            return span
          },
          context: native.context
        })
        const traced = <A, E>(effect: Effect.Effect<A, E>) =>
          effect.pipe(Effect.withTracer(tracer), Effect.withTracerEnabled(true))
        yield* traced(sql`SELECT ${1} AS outside`)
        yield* traced(sql.withTransaction(Effect.andThen(sql`SELECT ${2} AS inside`, sql`PRAGMA foreign_keys`)))
        // effect/sql names a statement's span as OpenTelemetry's database conventions do: `db.system.name`
        // when the client has no `db.namespace` nor server address, as a SQLite file has not.
        const statements = spans
          .filter((span) => span.name === "sqlite")
          .map((span) => [span.attributes.get("db.query.text"), span.attributes.get("db.system.name")])
        expect(statements).toEqual([
          ["SELECT ? AS outside", "sqlite"],
          ["SELECT ? AS inside", "sqlite"],
          ["PRAGMA foreign_keys", "sqlite"]
        ])
        expect(spans.map((span) => span.name)).toContain("sql.transaction")
        spans.length = 0
        yield* sql`SELECT ${3} AS untraced`.pipe(Effect.withTracer(tracer), Effect.withTracerEnabled(false))
        expect(spans.filter((span) => span.name === "sqlite")).toEqual([])
      })
  )

  it.live("the ports read committed data outside a transaction, never another request's open one", () =>
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
              // Inside the transaction its own write is read, on the writer.
              expect(Option.isSome(yield* repository.get(company, "products", product.id))).toBe(true)
              yield* Deferred.succeed(written, undefined)
              yield* Deferred.await(release)
              if (outcome === "rolls back") return yield* Effect.fail("roll back" as const)
            })
          )
          .pipe(Effect.exit, Effect.forkChild)
        yield* Deferred.await(written)
        const outside = repository
          .get(company, "products", product.id)
          .pipe(Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.fail("waited") }))
        expect(Option.isNone(yield* outside)).toBe(true)
        const listed = repository
          .list(company, "products", { limit: 10 })
          .pipe(Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.fail("waited") }))
        expect(yield* listed).toEqual([])
        yield* Deferred.succeed(release, undefined)
        expect(Exit.isSuccess(yield* Fiber.join(writer))).toBe(outcome === "commits")
        expect(Option.isSome(yield* outside)).toBe(outcome === "commits")
      }
    })
  )

  it.effect("an in-memory database is one connection: the ports read on the writer", () =>
    Effect.gen(function* () {
      const memory = yield* Layer.build(sqliteLayer({ filename: ":memory:" }))
      const repository = Context.get(
        memory as Context.Context<CatalogRepository.CatalogRepository>,
        CatalogRepository.CatalogRepository
      )
      const product = record(companyId())
      yield* repository.insert(product)
      expect(yield* repository.get(product.companyId, "products", product.id)).toEqual(Option.some(product))
    })
  )
})

describe("SqliteCommitVersion.otherCommits", () => {
  it.effect("keeps its version while nothing commits and sees another connection's commit at once", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoInstances
      const version = yield* Layer.build(SqliteCommitVersion.otherCommits.pipe(Layer.provide(Layer.succeedContext(a))))
      const current = Context.get(version, CommitVersion.CommitVersion).current
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

  it.effect("is unknown while a transaction holds the writer and something committed, so nothing older is kept", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoInstances
      const version = yield* Layer.build(SqliteCommitVersion.otherCommits.pipe(Layer.provide(Layer.succeedContext(a))))
      const current = Context.get(version, CommitVersion.CommitVersion).current
      const sql = clientOf(a)
      const before = yield* current
      // The transaction's first read fixes its snapshot; another connection commits after it.
      const open = yield* heldTransaction(sql, sql`SELECT count(*) FROM changes`)
      yield* appendOn(b, companyId())
      expect(yield* current).toEqual(Option.none())
      yield* open.end
      const after = yield* current
      expect(Option.isSome(after)).toBe(true)
      expect(after).not.toEqual(before)
    })
  )
})
