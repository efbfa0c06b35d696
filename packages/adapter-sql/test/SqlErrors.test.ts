import { SqlErrors } from "@catalog-sync/adapter-sql"
import { SqlError } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, HashMap, Logger, Option, Schema, TestClock } from "effect"

const driverError = (code?: string) =>
  new SqlError.SqlError({
    cause: Object.assign(new Error("driver"), code === undefined ? {} : { code }),
    message: "Failed to execute statement"
  })

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
      expect(
        SqlErrors.classify(new SqlError.SqlError({ cause: new Error(message), message: "Connection error" }))
      ).toBe("retryable")
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
      expect(Exit.isFailure(syntax) && Cause.isDie(syntax.cause)).toBe(true)
      const parse = yield* Effect.exit(SqlErrors.refineErrors(Schema.decodeUnknown(Schema.Number)("not a number")))
      expect(Exit.isFailure(parse) && Cause.isDie(parse.cause)).toBe(true)
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
        const capture = Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ annotations, message }) =>
            lines.push({
              message: String(Array.isArray(message) ? message[0] : message),
              suppressed: HashMap.get(annotations, "failures_not_logged_since_last").pipe(Option.getOrUndefined)
            })
          )
        )
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
