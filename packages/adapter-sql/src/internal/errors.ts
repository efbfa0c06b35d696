import { Errors } from "@catalog-sync/core"
import { Clock, Effect, Schema } from "effect"
import { SqlError } from "effect/sql"

/**
 * How a driver failure should surface. Ports never expose driver errors:
 * - `retryable`: lock contention or a lost connection; the same request may succeed a moment later.
 * - `unavailable`: the storage itself is unusable (disk full, I/O error, read-only file); not a bug in
 *   this code, so it must not become a 500-style defect, but retrying at once will not help either.
 * - `refused`: a value the database cannot hold as text (PostgreSQL refuses U+0000 and invalid UTF-8,
 *   which SQLite stores). The core's text schemas refuse such values before any statement on both engines
 *   (422 `validation_failed`); one that gets past them is a gap in a schema, answered without a retry and
 *   without a 500, and logged so that the gap is found.
 * - `defect`: everything else (syntax errors, unexpected constraint violations, type mismatches) is a
 *   bug in this adapter or a corrupted database; it dies so that it is loud and never retried.
 */
export type Failure = "retryable" | "unavailable" | "refused" | "defect"

// SQLite's result codes by name (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE, ...), as `sqliteCodeName` gives them.
const sqliteRetryable = /^SQLITE_(BUSY|LOCKED)/
const sqliteUnavailable = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|NOMEM|PROTOCOL|NOLFS)/
// PostgreSQL SQLSTATEs: serialization failure, deadlock, lock not available, query canceled (what the
// pool's statement_timeout raises on an overloaded database), admin shutdown / crash, connection
// exceptions (08xxx) and insufficient resources (53xxx). Kept here so that adapter-pg inherits the same
// rule instead of growing its own.
const pgRetryable = /^(40001|40P01|55P03|57014|57P0[1-3]|08...|53...)$/
// PostgreSQL SQLSTATEs of a text value it cannot store: character_not_in_repertoire (a NUL byte or an
// invalid UTF-8 sequence) and untranslatable_character.
const pgRefused = /^(22021|22P05)$/
// Socket-level failures (node) and postgres.js connection states.
const connectionLost =
  /^(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|EHOSTUNREACH|CONNECTION_(CLOSED|ENDED|DESTROYED)|CONNECT_TIMEOUT)$/
// node-postgres reports a connection lost mid-query, and a pool that cannot hand out a connection in time,
// with errors that carry no code at all; their fixed texts are all there is. @effect/sql-pg 4 (its own
// protocol client) reports both as a ConnectionError reason instead, also without a code.
const pgUncoded = /^(Connection terminated|timeout exceeded when trying to connect)/

// node:sqlite reports every failure with the code ERR_SQLITE_ERROR and SQLite's extended result code as a
// number (`errcode`); the names are SQLite's own, those of the extended codes this module tells apart, else
// the primary code's (the low byte), which classifies the same.
const sqlitePrimary: Record<number, string> = {
  1: "ERROR",
  2: "INTERNAL",
  3: "PERM",
  4: "ABORT",
  5: "BUSY",
  6: "LOCKED",
  7: "NOMEM",
  8: "READONLY",
  9: "INTERRUPT",
  10: "IOERR",
  11: "CORRUPT",
  12: "NOTFOUND",
  13: "FULL",
  14: "CANTOPEN",
  15: "PROTOCOL",
  16: "EMPTY",
  17: "SCHEMA",
  18: "TOOBIG",
  19: "CONSTRAINT",
  20: "MISMATCH",
  21: "MISUSE",
  22: "NOLFS",
  23: "AUTH",
  24: "FORMAT",
  25: "RANGE",
  26: "NOTADB"
}
const sqliteExtended: Record<number, string> = {
  261: "BUSY_RECOVERY",
  517: "BUSY_SNAPSHOT",
  773: "BUSY_TIMEOUT",
  262: "LOCKED_SHAREDCACHE",
  518: "LOCKED_VTAB",
  266: "IOERR_READ",
  778: "IOERR_WRITE",
  1034: "IOERR_FSYNC",
  3082: "IOERR_NOMEM",
  264: "READONLY_RECOVERY",
  520: "READONLY_CANTLOCK",
  776: "READONLY_ROLLBACK",
  1032: "READONLY_DBMOVED",
  275: "CONSTRAINT_CHECK",
  531: "CONSTRAINT_COMMITHOOK",
  787: "CONSTRAINT_FOREIGNKEY",
  1043: "CONSTRAINT_FUNCTION",
  1299: "CONSTRAINT_NOTNULL",
  1555: "CONSTRAINT_PRIMARYKEY",
  1811: "CONSTRAINT_TRIGGER",
  2067: "CONSTRAINT_UNIQUE",
  2323: "CONSTRAINT_VTAB",
  2579: "CONSTRAINT_ROWID",
  3091: "CONSTRAINT_DATATYPE"
}

/** The name of a SQLite result code (`SQLITE_BUSY_SNAPSHOT`), extended or primary. */
export const sqliteCodeName = (errcode: number): string => {
  const name = sqliteExtended[errcode] ?? sqlitePrimary[errcode & 0xff]
  return name === undefined ? `SQLITE_${errcode}` : `SQLITE_${name}`
}

/** The driver's own error, below the SqlError and its reason. */
const driverCause = (error: SqlError.SqlError): unknown => error.reason.cause

const codeOf = (error: SqlError.SqlError): string | undefined => {
  const cause = driverCause(error)
  if (typeof cause !== "object" || cause === null) return undefined
  if ("errcode" in cause && typeof cause.errcode === "number" && "code" in cause && cause.code === "ERR_SQLITE_ERROR") {
    return sqliteCodeName(cause.errcode)
  }
  if ("code" in cause && typeof cause.code === "string") return cause.code
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
  if (code === undefined) {
    if (error.reason._tag === "ConnectionError") return "retryable"
    const cause = driverCause(error)
    return cause instanceof Error && pgUncoded.test(cause.message) ? "retryable" : "defect"
  }
  if (sqliteRetryable.test(code) || pgRetryable.test(code) || connectionLost.test(code)) return "retryable"
  if (sqliteUnavailable.test(code)) return "unavailable"
  if (pgRefused.test(code)) return "refused"
  return "defect"
}

// One warning per minute at most: a database that stops answering fails every request, and one line with
// the cause (and how many failures followed the last one) tells the operator more than thousands. Refused
// values are counted apart, so that neither hides the other.
const reportEveryMillis = 60_000
const reported = { database: { next: 0, since: 0 }, refused: { next: 0, since: 0 } }

const what: Record<Exclude<Failure, "defect">, string> = {
  retryable: "a request failed on the database (busy or reconnecting)",
  unavailable: "a request failed on the database (unavailable)",
  refused: "the database refused a value it cannot store, which a text schema let through"
}

const reportOnce = (error: SqlError.SqlError, failure: Exclude<Failure, "defect">) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const state = failure === "refused" ? reported.refused : reported.database
    if (now < state.next) {
      state.since++
      return Effect.void
    }
    const suppressed = state.since
    state.next = now + reportEveryMillis
    state.since = 0
    const driver = driverCause(error)
    const cause = driver instanceof Error ? driver.message : error.message
    return Effect.logWarning(`${what[failure]}: ${cause}`).pipe(
      Effect.annotateLogs({
        code: codeOf(error) ?? "unknown",
        failures_not_logged_since_last: suppressed,
        next_report_in_seconds: reportEveryMillis / 1000
      })
    )
  })

const persistenceMessage: Record<Exclude<Failure, "defect">, string> = {
  retryable: "storage busy",
  unavailable: "storage unavailable",
  refused: "storage refused a value"
}

/**
 * A driver failure as the port's error channel sees it: a PersistenceError (retryable only when the
 * database was busy or reconnecting), or a defect.
 */
export const fromSqlError = (error: SqlError.SqlError): Effect.Effect<never, Errors.PersistenceError> => {
  const failure = classify(error)
  if (failure === "defect") return Effect.die(error)
  return reportOnce(error, failure).pipe(
    Effect.andThen(
      Effect.fail(
        new Errors.PersistenceError({
          message: `${persistenceMessage[failure]} (${codeOf(error) ?? "unknown"})`,
          retryable: failure === "retryable"
        })
      )
    )
  )
}

/**
 * Translates the driver-level failures of an adapter operation: SqlError as `fromSqlError` says, and
 * SchemaError (a row that does not decode, or a request that does not encode) as a defect, since it
 * means the schema and the code disagree.
 */
export const refineErrors = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, SqlError.SqlError | Schema.SchemaError> | Errors.PersistenceError, R> =>
  Effect.catch(
    self,
    (error): Effect.Effect<never, Exclude<E, SqlError.SqlError | Schema.SchemaError> | Errors.PersistenceError> => {
      if (SqlError.isSqlError(error)) return fromSqlError(error)
      if (Schema.isSchemaError(error)) return Effect.die(error)
      return Effect.fail(error as Exclude<E, SqlError.SqlError | Schema.SchemaError>)
    }
  )
