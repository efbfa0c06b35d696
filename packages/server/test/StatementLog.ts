import { StatementHook } from "@catalog-sync/adapter-sql"
import { Effect } from "effect"
import type { SqlConnection } from "effect/sql"

type Connection = SqlConnection.Connection

/**
 * A statement as the driver received it, the connection it ran on (numbered in the order the client handed
 * them out: a transaction is one), and whether another statement was still on its way when it was sent.
 */
export interface Logged {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
  readonly connection: number
  readonly overlapped: boolean
}

/**
 * The key lookup of authentication (and of a job checking its key), by its join. Its answers are cached
 * while the keys' version stays the same, so it runs now and then: counts set it apart.
 */
export const isKeyLookup = (text: string) => text.includes(" FROM api_keys k JOIN connections c ")

/**
 * A database connection wrapper (the server's `sql` override) that writes down every statement the
 * server runs while recording (`start` ... `stop`), as the driver receives it: BEGIN, SAVEPOINT and
 * COMMIT included, on SQLite the reads its reader answers too. Alike on both engines: the engine is
 * named for callers' clarity only.
 */
export const statementLog = (_database: "sqlite" | "postgres") => {
  const state = { recording: false, statements: [] as Array<Logged>, inFlight: 0, connections: 0 }
  const wrapConnection = (conn: Connection): Connection => {
    const connection = ++state.connections
    return StatementHook.aroundStatements(conn, (text, params, run) =>
      Effect.suspend(() => {
        if (state.recording)
          state.statements.push({
            text: text.replace(/\s+/g, " ").trim(),
            params,
            connection,
            overlapped: state.inFlight > 0
          })
        state.inFlight++
        return Effect.ensuring(
          run,
          Effect.sync(() => state.inFlight--)
        )
      })
    )
  }
  const stopLogged = Effect.sync(() => {
    state.recording = false
    return state.statements
  })
  const start = Effect.sync(() => {
    state.statements = []
    state.recording = true
  })
  return {
    /** The server's `sql` override: every connection its client hands out, wrapped. */
    wrap: wrapConnection,
    start,
    /** How many statements ran since `start`, recording on. */
    count: Effect.sync(() => state.statements.length),
    /** Ends the recording; the statements run since `start`. */
    stop: Effect.map(stopLogged, (statements) => statements.map((s) => s.text)),
    /** Ends the recording; the statements run since `start`, with their parameters and connections. */
    stopLogged,
    /** Records a request and the background work it starts, until no statement has run for 300 ms. */
    untilQuiet: <A, E, R>(request: Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        yield* start
        const answer = yield* request
        let seen = -1
        for (let now = state.statements.length; now !== seen; now = state.statements.length) {
          seen = now
          yield* Effect.sleep("300 millis")
        }
        return { answer, statements: yield* stopLogged }
      })
  }
}
