import { Reactivity } from "@effect/experimental"
import { SqlClient, Statement } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Tracer } from "effect"
import { direct } from "../src/internal/direct.js"

/** A client over an in-memory SQLite database whose connection writes down each statement it runs. */
const logged = Effect.gen(function* () {
  const inner = yield* SqlClient.SqlClient
  const ran: Array<string> = []
  const wrap = (conn: Connection): Connection => ({
    ...conn,
    execute: (sql, params, transform) => {
      ran.push(sql)
      return conn.execute(sql, params, transform)
    },
    executeUnprepared: (sql, params, transform) => {
      ran.push(sql)
      return conn.executeUnprepared(sql, params, transform)
    }
  })
  const wrapped = yield* SqlClient.make({
    acquirer: Effect.map(inner.reserve, wrap),
    compiler: Statement.makeCompilerSqlite(),
    spanAttributes: []
  }).pipe(Effect.provide(Reactivity.layer))
  yield* inner`CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)`
  return { sql: direct(wrapped), ran }
})

const sqlite = SqliteClient.layer({ filename: ":memory:" })

// The server runs with the tracer off unless tracing is configured; the direct path is taken only then.

describe("direct statements", () => {
  it.effect("run on the transaction's connection, see its writes and roll back with it", () =>
    Effect.gen(function* () {
      const { sql, ran } = yield* logged
      const inserted = yield* sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO t ${sql.insert({ a: 1, b: "one" })}`
            const seen = yield* sql<{ b: string }>`SELECT b FROM t WHERE a = ${1}`
            expect(seen).toEqual([{ b: "one" }])
            return yield* Effect.fail("roll back" as const)
          })
        )
        .pipe(Effect.exit)
      expect(Exit.isFailure(inserted)).toBe(true)
      expect(yield* sql`SELECT b FROM t`).toEqual([])
      // Every statement went through the connection the client hands out, BEGIN and ROLLBACK included.
      expect(ran).toEqual([
        "BEGIN",
        `INSERT INTO t ("a","b") VALUES (?,?)`,
        "SELECT b FROM t WHERE a = ?",
        "ROLLBACK",
        "SELECT b FROM t"
      ])
    }).pipe(Effect.withTracerEnabled(false), Effect.provide(sqlite))
  )

  it.effect("stay fragments of other statements, and keep their other forms", () =>
    Effect.gen(function* () {
      const { sql } = yield* logged
      yield* sql`INSERT INTO t ${sql.insert([
        { a: 1, b: "one" },
        { a: 2, b: "two" }
      ])}`
      const filter = sql`AND b = ${"two"}`
      expect(yield* sql`SELECT a FROM t WHERE a > ${0} ${filter}`).toEqual([{ a: 2 }])
      expect(yield* sql`SELECT a, b FROM t ORDER BY a`.values).toEqual([
        [1, "one"],
        [2, "two"]
      ])
      const inTransaction = yield* sql.withTransaction(sql`SELECT a FROM t WHERE a > ${0} ${filter}`)
      expect(inTransaction).toEqual([{ a: 2 }])
    }).pipe(Effect.withTracerEnabled(false), Effect.provide(sqlite))
  )

  it.effect("keep the client's row transform, and a statement transformer's rewrite, inside a transaction", () =>
    Effect.gen(function* () {
      const sql = direct(yield* SqlClient.SqlClient)
      yield* sql`CREATE TABLE t (a_b INTEGER)`
      yield* sql`INSERT INTO t ${sql.insert({ a_b: 1 })}`
      expect(yield* sql.withTransaction(sql`SELECT a_b FROM t`)).toEqual([{ A_B: 1 }])
      const rewritten = yield* sql
        .withTransaction(sql`SELECT a_b FROM t`)
        .pipe(Statement.withTransformer(() => Effect.succeed(sql`SELECT 2 AS a_b`)))
      expect(rewritten).toEqual([{ A_B: 2 }])
    }).pipe(
      Effect.withTracerEnabled(false),
      Effect.provide(SqliteClient.layer({ filename: ":memory:", transformResultNames: (name) => name.toUpperCase() }))
    )
  )

  it.effect("open their span as usual when tracing is on", () =>
    Effect.gen(function* () {
      const { sql } = yield* logged
      const names: Array<string> = []
      const native = yield* Effect.tracer
      const tracer = Tracer.make({
        span: (name, ...rest) => {
          names.push(name)
          return native.span(name, ...rest)
        },
        context: native.context
      })
      yield* sql.withTransaction(sql`SELECT a FROM t`).pipe(Effect.withTracer(tracer), Effect.withTracerEnabled(true))
      expect(names).toContain("sql.execute")
      names.length = 0
      yield* sql.withTransaction(sql`SELECT a FROM t`).pipe(Effect.withTracer(tracer), Effect.withTracerEnabled(false))
      expect(names).not.toContain("sql.execute")
    }).pipe(Effect.withTracerEnabled(false), Effect.provide(sqlite))
  )
})
