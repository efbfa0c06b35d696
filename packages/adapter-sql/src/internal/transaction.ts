import { Errors } from "@catalog-sync/core"
import { type SqlClient, SqlError } from "effect/sql"
import { Context, Effect } from "effect"
import { classify, fromSqlError } from "./errors.js"
import { CurrentPendingChanges, emptyPendingChanges, handOver, writePending } from "./pendingChanges.js"

/** A defect of the transaction's body, carried through `withTransaction` so it is told apart from its own. */
class BodyDefect {
  constructor(readonly defect: unknown) {}
}

/**
 * A failed BEGIN, SAVEPOINT or COMMIT (a SqlError of `withTransaction`), or a failed ROLLBACK, which
 * effect/sql raises as a defect (a dropped connection makes the rollback fail too). The database has not applied the transaction, or its outcome is unknown: either
 * way a replay with the same Idempotency-Key settles it, so it is a storage failure, never a 500.
 */
const controlFailure = (error: SqlError.SqlError): Effect.Effect<never, Errors.PersistenceError> =>
  classify(error) === "defect"
    ? Effect.fail(
        new Errors.PersistenceError({ message: "storage unavailable (transaction aborted)", retryable: true })
      )
    : fromSqlError(error)

/**
 * effect/sql rolls back after a failed COMMIT only when the client asks for it (`onCommitFailure`), and
 * SQLite keeps the transaction open then (e.g. SQLITE_BUSY on commit): the next statements on the one
 * connection would run, and commit, inside it. A best-effort ROLLBACK on a reserved connection ends it;
 * after a failed BEGIN, or where PostgreSQL has already ended it, the stray ROLLBACK only warns.
 */
const abandon = (sql: SqlClient.SqlClient) =>
  Effect.scoped(Effect.flatMap(sql.reserve, (conn) => conn.executeUnprepared("ROLLBACK", [], undefined))).pipe(
    Effect.ignore
  )

const isSqlError = SqlError.isSqlError

/** The body: its driver failures classified as everywhere else (a constraint violation dies), its defects marked. */
const body = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.catch((error: E): Effect.Effect<never, E | Errors.PersistenceError> =>
      isSqlError(error) ? fromSqlError(error) : Effect.fail(error)
    ),
    Effect.catchDefect((defect) => Effect.die(new BodyDefect(defect)))
  )

/**
 * Whether the fiber runs in a transaction of `sql`: effect/sql marks one in the fiber's context with the
 * client's own transaction service, present only between BEGIN and its end.
 */
export const transactionOpen = (sql: SqlClient.SqlClient): Effect.Effect<boolean> =>
  Effect.withFiberSucceed((fiber) => Context.getOrUndefined(fiber.context, sql.transactionService) !== undefined)

/**
 * The effect in the transaction open on the fiber, or in its own when there is none: for writes that are
 * one unit whatever the caller does, where the caller's transaction rolls back on their failure anyway.
 */
export const atomically =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<A, Exclude<E, SqlError.SqlError> | Errors.PersistenceError, R> =>
    Effect.flatMap(
      transactionOpen(sql),
      (open): Effect.Effect<A, Exclude<E, SqlError.SqlError> | Errors.PersistenceError, R> =>
        open
          ? Effect.catch(
              effect,
              (error: E): Effect.Effect<never, Exclude<E, SqlError.SqlError> | Errors.PersistenceError> =>
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
    Effect.flatMap(transactionOpen(sql), (outer) =>
      Effect.flatMap(
        CurrentPendingChanges,
        (enclosing): Effect.Effect<A, Exclude<E, SqlError.SqlError> | Errors.PersistenceError, R> => {
          const own = emptyPendingChanges()
          // The enclosing transaction's entries, when this is a savepoint of a transaction opened here.
          const outerPending = outer ? enclosing : undefined
          const withChangesLast = effect.pipe(
            Effect.provideService(CurrentPendingChanges, own),
            Effect.tap(() =>
              outerPending !== undefined ? Effect.sync(() => handOver(own, outerPending)) : writePending(own)
            )
          )
          // A savepoint starts with the enclosing transaction's entries written: a read of the log inside it
          // then sees them, its own entries take the positions after them, and rolling it back drops only its
          // own (an import's record-by-record replay, where each record appended in its savepoint anyway).
          const opened = outerPending !== undefined ? writePending(outerPending) : Effect.void
          // The body's own SqlErrors are PersistenceError (or a marked defect) already: a SqlError left here
          // is the transaction's (BEGIN, e.g. SQLITE_BUSY when another process holds the lock, SAVEPOINT
          // or COMMIT).
          const ended = (error: SqlError.SqlError) =>
            Effect.andThen(outer ? Effect.void : abandon(sql), controlFailure(error))
          return Effect.andThen(opened, sql.withTransaction(body(withChangesLast))).pipe(
            Effect.catchDefect((defect) => {
              if (defect instanceof BodyDefect) return Effect.die(defect.defect)
              if (!isSqlError(defect)) return Effect.die(defect)
              return ended(defect)
            }),
            Effect.catch(
              (
                error: E | Errors.PersistenceError | SqlError.SqlError
              ): Effect.Effect<never, Exclude<E, SqlError.SqlError> | Errors.PersistenceError> =>
                isSqlError(error) ? ended(error) : Effect.fail(error as Exclude<E, SqlError.SqlError>)
            )
          )
        }
      )
    )
