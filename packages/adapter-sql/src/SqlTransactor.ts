import { type CatalogErrors, Transactor } from "@catalog-sync/core"
import { SqlClient, SqlError } from "@effect/sql"
import { type Context, Effect, Layer } from "effect"
import { fromSqlError } from "./internal/errors.js"

/**
 * Transactor over any `SqlClient`. `sql.withTransaction` opens a transaction, or a savepoint when one is
 * already open on the fiber, so nested calls compose and an inner failure rolls back only its own part.
 */
export const make: Effect.Effect<Context.Tag.Service<typeof Transactor.Transactor>, never, SqlClient.SqlClient> = Effect.map(SqlClient.SqlClient, (sql) =>
  Transactor.Transactor.of({
    withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | CatalogErrors.PersistenceError, R> =>
      sql.withTransaction(effect).pipe(
        // The ports never fail with SqlError, so one here comes from BEGIN / COMMIT / ROLLBACK itself,
        // e.g. SQLITE_BUSY on commit when another process holds the write lock.
        Effect.catchIf((error): error is SqlError.SqlError => error instanceof SqlError.SqlError, fromSqlError),
        Effect.withSpan("Transactor.withTransaction", { captureStackTrace: false })
      )
  })
)

/** Transactor over the `SqlClient` in context. */
export const layer: Layer.Layer<Transactor.Transactor, never, SqlClient.SqlClient> = Layer.effect(Transactor.Transactor, make)
