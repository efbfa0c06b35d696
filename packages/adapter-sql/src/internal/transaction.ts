import { Errors } from "@catalog-sync/core"
import { SqlClient, SqlError } from "@effect/sql"
import { Effect, Option } from "effect"
import { classify, fromSqlError } from "./errors.js"
import { CurrentPendingChanges, emptyPendingChanges, handOver, writePending } from "./pendingChanges.js"

/** A defect of the transaction's body, carried through `withTransaction` so it is told apart from its own. */
class BodyDefect {
  constructor(readonly defect: unknown) {}
}

/**
 * A failed BEGIN, COMMIT or ROLLBACK, which @effect/sql raises as a defect (a dropped connection makes
 * the rollback fail too). The database has not applied the transaction, or its outcome is unknown: either
 * way a replay with the same Idempotency-Key settles it, so it is a storage failure, never a 500.
 */
const controlFailure = (error: SqlError.SqlError): Effect.Effect<never, Errors.PersistenceError> =>
  classify(error) === "defect"
    ? Effect.fail(
        new Errors.PersistenceError({ message: "storage unavailable (transaction aborted)", retryable: true })
      )
    : fromSqlError(error)

/**
 * @effect/sql does not roll back after a failed COMMIT, and SQLite keeps the transaction open then (e.g.
 * SQLITE_BUSY on commit): the next statements on the one connection would run, and commit, inside it.
 * A best-effort ROLLBACK on a reserved connection ends it; PostgreSQL has already ended it, and there
 * the stray ROLLBACK only warns.
 */
const abandon = (sql: SqlClient.SqlClient) =>
  Effect.scoped(Effect.flatMap(sql.reserve, (conn) => conn.executeUnprepared("ROLLBACK", [], undefined))).pipe(
    Effect.ignore
  )

const isSqlError = (u: unknown): u is SqlError.SqlError => u instanceof SqlError.SqlError

/** The body: its driver failures classified as everywhere else (a constraint violation dies), its defects marked. */
const body = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.catchAll((error): Effect.Effect<never, E | Errors.PersistenceError> =>
      isSqlError(error) ? fromSqlError(error) : Effect.fail(error)
    ),
    Effect.catchAllDefect((defect) => Effect.die(new BodyDefect(defect)))
  )

/**
 * The effect in the transaction open on the fiber, or in its own when there is none: for writes that are
 * one unit whatever the caller does, where the caller's transaction rolls back on their failure anyway.
 */
export const atomically =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<A, Exclude<E, SqlError.SqlError> | Errors.PersistenceError, R> =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (open) =>
      Option.isSome(open)
        ? Effect.catchAll(
            effect,
            (error): Effect.Effect<never, Exclude<E, SqlError.SqlError> | Errors.PersistenceError> =>
              isSqlError(error) ? fromSqlError(error) : Effect.fail(error as Exclude<E, SqlError.SqlError>)
          )
        : inTransaction(sql)(effect)
    )

/**
 * `sql.withTransaction` whose own failures (BEGIN, SAVEPOINT, COMMIT, ROLLBACK) become PersistenceError
 * instead of SqlError or a defect; the body's failures and defects pass through unchanged. The change
 * entries the body appends are written after it, as the last statement before COMMIT (`PendingChanges`);
 * a savepoint starts with the enclosing transaction's entries written, hands its own to it when released,
 * and drops them when rolled back.
 */
export const inTransaction =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<A, Exclude<E, SqlError.SqlError> | Errors.PersistenceError, R> =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
      Effect.flatMap(Effect.serviceOption(CurrentPendingChanges), (enclosing) => {
        const own = emptyPendingChanges()
        const withChangesLast = effect.pipe(
          Effect.provideService(CurrentPendingChanges, own),
          Effect.tap(() =>
            Option.isSome(outer) && Option.isSome(enclosing)
              ? Effect.sync(() => handOver(own, enclosing.value))
              : writePending(own)
          )
        )
        // A savepoint starts with the enclosing transaction's entries written: a read of the log inside it
        // then sees them, its own entries take the positions after them, and rolling it back drops only its
        // own (an import's record-by-record replay, where each record appended in its savepoint anyway).
        const opened = Option.isSome(outer) && Option.isSome(enclosing) ? writePending(enclosing.value) : Effect.void
        return Effect.zipRight(opened, sql.withTransaction(body(withChangesLast))).pipe(
          Effect.catchAllDefect((defect) => {
            if (defect instanceof BodyDefect) return Effect.die(defect.defect)
            if (!isSqlError(defect)) return Effect.die(defect)
            return Effect.zipRight(Option.isNone(outer) ? abandon(sql) : Effect.void, controlFailure(defect))
          }),
          // A SqlError left here comes from BEGIN itself, e.g. SQLITE_BUSY when another process holds the lock.
          Effect.catchIf(isSqlError, controlFailure)
        )
      })
    )
