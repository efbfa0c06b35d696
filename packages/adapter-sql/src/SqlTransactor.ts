import { type Errors, Transactor } from "@catalog-sync/core"
import { SqlClient } from "effect/sql"
import { type Context, Effect, Layer } from "effect"
import { atomically, inTransaction } from "./internal/transaction.js"
import { span } from "./internal/spans.js"

export { transactionOpen } from "./internal/transaction.js"

/**
 * Transactor over any `SqlClient`. `sql.withTransaction` opens a transaction, or a savepoint when one is
 * already open on the fiber, so nested calls compose and an inner failure rolls back only its own part;
 * `atomically` runs in the open transaction as it is.
 */
export const make: Effect.Effect<
  Context.Service.Shape<typeof Transactor.Transactor>,
  never,
  SqlClient.SqlClient
> = Effect.map(SqlClient.SqlClient, (sql) =>
  Transactor.Transactor.of({
    withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Errors.PersistenceError, R> =>
      inTransaction(sql)(effect).pipe(span("Transactor.withTransaction")),
    atomically: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Errors.PersistenceError, R> =>
      atomically(sql)(effect)
  })
)

/** Transactor over the `SqlClient` in context. */
export const layer: Layer.Layer<Transactor.Transactor, never, SqlClient.SqlClient> = Layer.effect(
  Transactor.Transactor,
  make
)
