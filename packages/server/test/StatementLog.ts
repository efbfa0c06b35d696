import type { Connection } from "@effect/sql/SqlConnection"
import { Effect } from "effect"

/**
 * A database connection wrapper (the server's `sql` override) that writes down every statement the
 * server runs while recording (`start` ... `stop`), as the driver receives it: BEGIN, SAVEPOINT and
 * COMMIT included, on SQLite the reads its reader answers too. Alike on both engines: the engine is
 * named for callers' clarity only.
 */
export const statementLog = (_database: "sqlite" | "postgres") => {
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
  return {
    /** The server's `sql` override: every connection its client hands out, wrapped. */
    wrap: wrapConnection,
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
