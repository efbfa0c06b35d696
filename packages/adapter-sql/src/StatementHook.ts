import { Effect, Stream } from "effect"
import type { SqlConnection, SqlError } from "effect/sql"

type Connection = SqlConnection.Connection

/** What runs around each statement: its text, its parameters and its run, which it may delay, fail or record. */
export type AroundStatement = <A>(
  sql: string,
  params: ReadonlyArray<unknown>,
  run: Effect.Effect<A, SqlError.SqlError>
) => Effect.Effect<A, SqlError.SqlError>

/**
 * `connection` with every statement it runs, by any of its methods, passed through `around`: the one way
 * to write a `wrapConnection` that counts, logs, holds or fails statements. A streamed statement passes
 * through it when its stream starts.
 */
export const aroundStatements = (connection: Connection, around: AroundStatement): Connection => ({
  execute: (sql, params, transform) => around(sql, params, connection.execute(sql, params, transform)),
  executeRaw: (sql, params) => around(sql, params, connection.executeRaw(sql, params)),
  executeValues: (sql, params) => around(sql, params, connection.executeValues(sql, params)),
  executeValuesUnprepared: (sql, params) => around(sql, params, connection.executeValuesUnprepared(sql, params)),
  executeUnprepared: (sql, params, transform) =>
    around(sql, params, connection.executeUnprepared(sql, params, transform)),
  executeStream: (sql, params, transform) =>
    Stream.unwrap(
      around(
        sql,
        params,
        Effect.sync(() => connection.executeStream(sql, params, transform))
      )
    )
})
