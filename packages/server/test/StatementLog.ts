import { Reactivity } from "@effect/experimental"
import { SqlClient, Statement } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"

/**
 * A database client that writes down every statement it runs while recording (`start` ... `stop`), as
 * the driver receives it: BEGIN, SAVEPOINT and COMMIT included.
 */
export const statementLog = (database: "sqlite" | "postgres") => {
  const state = { recording: false, statements: [] as Array<string> }
  const note = (query: string) => {
    if (state.recording) state.statements.push(query.replace(/\s+/g, " ").trim())
  }
  const wrapConnection = (conn: Connection): Connection => ({
    execute: (sql, params, transform) =>
      Effect.zipRight(
        Effect.sync(() => note(sql)),
        conn.execute(sql, params, transform)
      ),
    executeRaw: (sql, params) =>
      Effect.zipRight(
        Effect.sync(() => note(sql)),
        conn.executeRaw(sql, params)
      ),
    executeValues: (sql, params) =>
      Effect.zipRight(
        Effect.sync(() => note(sql)),
        conn.executeValues(sql, params)
      ),
    executeUnprepared: (sql, params, transform) =>
      Effect.zipRight(
        Effect.sync(() => note(sql)),
        conn.executeUnprepared(sql, params, transform)
      ),
    executeStream: (sql, params, transform) => {
      note(sql)
      return conn.executeStream(sql, params, transform)
    }
  })
  const wrap = (client: SqlClient.SqlClient) =>
    SqlClient.make({
      acquirer: Effect.map(client.reserve, wrapConnection),
      compiler: database === "sqlite" ? Statement.makeCompilerSqlite() : PgClient.makeCompiler(),
      spanAttributes: []
    }).pipe(Effect.provide(Reactivity.layer))
  return {
    wrap,
    start: Effect.sync(() => {
      state.statements = []
      state.recording = true
    }),
    /** How many statements ran since `start`, recording on. */
    count: Effect.sync(() => state.statements.length),
    /** Ends the recording; the statements run since `start`. */
    stop: Effect.sync(() => {
      state.recording = false
      return state.statements
    })
  }
}
