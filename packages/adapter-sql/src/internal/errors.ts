import { Errors } from "@catalog-sync/core"
import { SqlError } from "@effect/sql"
import { Clock, Effect, ParseResult } from "effect"

/**
 * How a driver failure should surface. Ports never expose driver errors:
 * - `retryable`: lock contention or a lost connection; the same request may succeed a moment later.
 * - `unavailable`: the storage itself is unusable (disk full, I/O error, read-only file); not a bug in
 *   this code, so it must not become a 500-style defect, but retrying at once will not help either.
 * - `defect`: everything else (syntax errors, unexpected constraint violations, type mismatches) is a
 *   bug in this adapter or a corrupted database; it dies so that it is loud and never retried.
 */
export type Failure = "retryable" | "unavailable" | "defect"

// better-sqlite3 reports extended result codes (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE, ...).
const sqliteRetryable = /^SQLITE_(BUSY|LOCKED)/
const sqliteUnavailable = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|NOMEM|PROTOCOL|NOLFS)/
// PostgreSQL SQLSTATEs: serialization failure, deadlock, lock not available, query canceled (what the
// pool's statement_timeout raises on an overloaded database), admin shutdown / crash, connection
// exceptions (08xxx) and insufficient resources (53xxx). Kept here so that adapter-pg inherits the same
// rule instead of growing its own.
const pgRetryable = /^(40001|40P01|55P03|57014|57P0[1-3]|08...|53...)$/
// Socket-level failures (node) and postgres.js connection states.
const connectionLost =
  /^(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|EHOSTUNREACH|CONNECTION_(CLOSED|ENDED|DESTROYED)|CONNECT_TIMEOUT)$/
// node-postgres (the driver of @effect/sql-pg) reports a connection lost mid-query, and a pool that cannot
// hand out a connection in time, with errors that carry no code at all; their fixed texts are all there is.
const pgUncoded = /^(Connection terminated|timeout exceeded when trying to connect)/

const codeOf = (error: SqlError.SqlError): string | undefined => {
  const cause = error.cause
  if (typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string") {
    return cause.code
  }
  return undefined
}

// A unique or primary-key violation: SQLite's extended codes, PostgreSQL's SQLSTATE unique_violation.
const uniqueViolation = /^(SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)|23505)$/

/**
 * Whether a driver failure is a unique (or primary-key) violation. For the one statement whose conflict
 * cannot be handled with ON CONFLICT, the adapter maps it to the domain conflict it means; it never
 * parses the message, so the statement must be one that can violate a single constraint only.
 */
export const isUniqueViolation = (error: SqlError.SqlError): boolean => {
  const code = codeOf(error)
  return code !== undefined && uniqueViolation.test(code)
}

/** Classifies a driver failure by its SQLite result code, PostgreSQL SQLSTATE or socket error code. */
export const classify = (error: SqlError.SqlError): Failure => {
  const code = codeOf(error)
  if (code === undefined)
    return error.cause instanceof Error && pgUncoded.test(error.cause.message) ? "retryable" : "defect"
  if (sqliteRetryable.test(code) || pgRetryable.test(code) || connectionLost.test(code)) return "retryable"
  if (sqliteUnavailable.test(code)) return "unavailable"
  return "defect"
}

// One warning per minute at most: a database that stops answering fails every request, and one line with
// the cause (and how many failures followed the last one) tells the operator more than thousands.
const reportEveryMillis = 60_000
const reported = { next: 0, since: 0 }

const reportOnce = (error: SqlError.SqlError, failure: Failure) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (now < reported.next) {
      reported.since++
      return Effect.void
    }
    const suppressed = reported.since
    reported.next = now + reportEveryMillis
    reported.since = 0
    const cause = error.cause instanceof Error ? error.cause.message : error.message
    return Effect.logWarning(
      `a request failed on the database (${failure === "retryable" ? "busy or reconnecting" : "unavailable"}): ${cause}`
    ).pipe(
      Effect.annotateLogs({
        code: codeOf(error) ?? "unknown",
        failures_not_logged_since_last: suppressed,
        next_report_in_seconds: reportEveryMillis / 1000
      })
    )
  })

/** A driver failure as the port's error channel sees it: a PersistenceError, or a defect. */
export const fromSqlError = (error: SqlError.SqlError): Effect.Effect<never, Errors.PersistenceError> => {
  const failure = classify(error)
  if (failure === "defect") return Effect.die(error)
  return reportOnce(error, failure).pipe(
    Effect.zipRight(
      Effect.fail(
        new Errors.PersistenceError({
          message: `storage ${failure === "retryable" ? "busy" : "unavailable"} (${codeOf(error) ?? "unknown"})`,
          retryable: failure === "retryable"
        })
      )
    )
  )
}

/**
 * Translates the driver-level failures of an adapter operation: SqlError as `fromSqlError` says, and
 * ParseError (a row that does not decode, or a request that does not encode) as a defect, since it
 * means the schema and the code disagree.
 */
export const refineErrors = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, SqlError.SqlError | ParseResult.ParseError> | Errors.PersistenceError, R> =>
  Effect.catchAll(
    self,
    (error): Effect.Effect<never, Exclude<E, SqlError.SqlError | ParseResult.ParseError> | Errors.PersistenceError> => {
      if (error instanceof SqlError.SqlError) return fromSqlError(error)
      if (ParseResult.isParseError(error)) return Effect.die(error)
      return Effect.fail(error as Exclude<E, SqlError.SqlError | ParseResult.ParseError>)
    }
  )
