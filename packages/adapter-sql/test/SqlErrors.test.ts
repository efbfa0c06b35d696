import { SqlErrors } from "@catalog-sync/adapter-sql"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Logger, References, Schema } from "effect"
import { SqlError } from "effect/sql"
import { TestClock } from "effect/testing"

const failedWith = (cause: unknown, message = "Failed to execute statement") =>
  new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause, message }) })

const driverError = (code?: string) =>
  failedWith(Object.assign(new Error("driver"), code === undefined ? {} : { code }))

/** An error as node:sqlite throws it: its code always ERR_SQLITE_ERROR, SQLite's extended code a number. */
const nodeSqliteError = (errcode: number) =>
  failedWith(Object.assign(new Error("sqlite"), { code: "ERR_SQLITE_ERROR", errcode, errstr: "sqlite" }))

describe("SqlErrors", () => {
  it("classifies SQLite, PostgreSQL and socket failures", () => {
    const cases: Array<[string | undefined, SqlErrors.Failure]> = [
      ["SQLITE_BUSY", "retryable"],
      ["SQLITE_BUSY_SNAPSHOT", "retryable"],
      ["SQLITE_LOCKED_SHAREDCACHE", "retryable"],
      ["SQLITE_FULL", "unavailable"],
      ["SQLITE_IOERR_WRITE", "unavailable"],
      ["SQLITE_READONLY", "unavailable"],
      ["SQLITE_CONSTRAINT_PRIMARYKEY", "defect"],
      ["SQLITE_ERROR", "defect"],
      ["40001", "retryable"],
      ["40P01", "retryable"],
      ["08006", "retryable"],
      ["57P01", "retryable"],
      ["57014", "retryable"],
      ["23505", "defect"],
      ["42601", "defect"],
      ["22021", "refused"],
      ["22P05", "refused"],
      ["22P02", "defect"],
      ["ECONNRESET", "retryable"],
      ["CONNECTION_CLOSED", "retryable"],
      [undefined, "defect"]
    ]
    for (const [code, expected] of cases)
      expect([code, SqlErrors.classify(driverError(code))]).toEqual([code, expected])
    // node-postgres gives these no code; an uncoded error with any other text stays a defect.
    for (const message of ["Connection terminated unexpectedly", "timeout exceeded when trying to connect"]) {
      expect(SqlErrors.classify(failedWith(new Error(message), "Connection error"))).toBe("retryable")
    }
    // @effect/sql-pg's own client: a closed connection or a pool timeout is a ConnectionError without a code.
    const closed = new SqlError.SqlError({
      reason: new SqlError.ConnectionError({ cause: new Error("Connection closed"), message: "PgConnection: closed" })
    })
    expect(SqlErrors.classify(closed)).toBe("retryable")
  })

  it("names node:sqlite's numeric result codes as SQLite does, and classifies them alike", () => {
    const cases: Array<[number, SqlErrors.Failure, boolean]> = [
      [5, "retryable", false],
      [517, "retryable", false],
      [262, "retryable", false],
      [13, "unavailable", false],
      [778, "unavailable", false],
      [8, "unavailable", false],
      [2067, "defect", true],
      [1555, "defect", true],
      [787, "defect", false],
      [1, "defect", false]
    ]
    for (const [errcode, expected, unique] of cases) {
      const error = nodeSqliteError(errcode)
      expect([errcode, SqlErrors.classify(error), SqlErrors.isUniqueViolation(error)]).toEqual([
        errcode,
        expected,
        unique
      ])
    }
  })

  it("recognises unique and primary-key violations of both engines, and nothing else", () => {
    for (const code of ["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY", "23505"]) {
      expect([code, SqlErrors.isUniqueViolation(driverError(code))]).toEqual([code, true])
    }
    for (const code of ["SQLITE_CONSTRAINT_FOREIGNKEY", "SQLITE_CONSTRAINT_CHECK", "23503", "SQLITE_BUSY", undefined]) {
      expect([code, SqlErrors.isUniqueViolation(driverError(code))]).toEqual([code, false])
    }
  })

  it.effect("refineErrors turns transient failures into PersistenceError and lets bugs die", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(SqlErrors.refineErrors(Effect.fail(driverError("SQLITE_BUSY"))))).toMatchObject({
        _tag: "PersistenceError",
        retryable: true
      })
      expect(yield* Effect.flip(SqlErrors.refineErrors(Effect.fail(driverError("SQLITE_FULL"))))).toMatchObject({
        _tag: "PersistenceError",
        retryable: false
      })
      // A value PostgreSQL cannot store as text is the request's, not the database's: no retry, no defect.
      expect(yield* Effect.flip(SqlErrors.refineErrors(Effect.fail(driverError("22021"))))).toMatchObject({
        _tag: "PersistenceError",
        retryable: false,
        message: "storage refused a value (22021)"
      })
      const syntax = yield* Effect.exit(SqlErrors.refineErrors(Effect.fail(driverError("SQLITE_ERROR"))))
      expect(Exit.isFailure(syntax) && Cause.hasDies(syntax.cause)).toBe(true)
      const parse = yield* Effect.exit(
        SqlErrors.refineErrors(Schema.decodeUnknownEffect(Schema.Number)("not a number"))
      )
      expect(Exit.isFailure(parse) && Cause.hasDies(parse.cause)).toBe(true)
      expect(yield* Effect.flip(SqlErrors.refineErrors(Effect.fail("domain" as const)))).toBe("domain")
    })
  )
})

describe("a database that stops answering", () => {
  it.effect(
    "is logged once with its cause, not per failed request; a minute later once more, with the count in between",
    () =>
      Effect.gen(function* () {
        const lines: Array<{ message: string; suppressed: unknown }> = []
        const capture = Logger.layer([
          Logger.make(({ fiber, message }) => {
            lines.push({
              message: String(Array.isArray(message) ? message[0] : message),
              suppressed: fiber.getRef(References.CurrentLogAnnotations)["failures_not_logged_since_last"]
            })
          })
        ])
        // Past any report of other tests, whose clock may be the real one.
        yield* TestClock.setTime(Date.now() + 3_600_000)
        const fail = Effect.exit(SqlErrors.fromSqlError(driverError("ECONNREFUSED"))).pipe(Effect.provide(capture))
        for (let i = 0; i < 50; i++) yield* fail
        expect(lines).toHaveLength(1)
        expect(lines[0]!.message).toContain("a request failed on the database (busy or reconnecting): driver")
        yield* TestClock.adjust("61 seconds")
        yield* fail
        expect(lines).toHaveLength(2)
        expect(lines[1]!.suppressed).toBe(49)
      })
  )
})
