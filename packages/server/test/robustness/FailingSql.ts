import { StatementHook } from "@catalog-sync/adapter-sql"
import { Effect } from "effect"
import { type SqlConnection, SqlError } from "effect/sql"

type Connection = SqlConnection.Connection

/** Which statements `arm` counts. */
export interface Arming {
  /** Statements not counted: another fiber's work, such as the job worker's polling. */
  readonly skip?: RegExp
  /** Counting starts at the first statement that matches (counted as 1): work started in the background. */
  readonly after?: RegExp
}

/**
 * A database client that fails the N-th statement after `arm(n)` (BEGIN and COMMIT count; ROLLBACK never
 * fails, so a failed write can always be undone). `injected` counts the faults that fired.
 */
export const failingSql = (database: "sqlite" | "postgres") => {
  const state = {
    countdown: 0,
    injected: 0,
    at: "",
    skip: undefined as RegExp | undefined,
    after: undefined as RegExp | undefined
  }
  const counts = (query: string) => {
    if (state.countdown === 0 || /^\s*rollback/i.test(query) || (state.skip?.test(query) ?? false)) return false
    if (state.after !== undefined) {
      if (!state.after.test(query)) return false
      state.after = undefined
    }
    return true
  }
  const fault = <A, E, R>(query: string, run: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
    Effect.suspend((): Effect.Effect<A, E | SqlError.SqlError, R> => {
      if (counts(query) && --state.countdown === 0) {
        state.injected++
        state.at = query.slice(0, 80)
        // A fault as the driver reports it: an I/O error (node:sqlite: its code, SQLite's extended result
        // code SQLITE_IOERR_WRITE) or a lost connection (PostgreSQL's SQLSTATE connection_failure).
        const message = `injected fault at: ${query.slice(0, 60)}`
        const reason =
          database === "sqlite"
            ? new SqlError.UnknownError({
                cause: Object.assign(new Error("injected fault"), { code: "ERR_SQLITE_ERROR", errcode: 778 }),
                message
              })
            : new SqlError.ConnectionError({
                cause: Object.assign(new Error("injected fault"), { code: "08006" }),
                message
              })
        return Effect.fail(new SqlError.SqlError({ reason }))
      }
      return run
    })
  const wrapConnection = (conn: Connection): Connection =>
    StatementHook.aroundStatements(conn, (query, _params, run) => fault(query, run))
  return {
    /** The server's `sql` override: every connection its client hands out, wrapped. */
    wrap: wrapConnection,
    /** Fails the n-th counted statement from now. */
    arm: (n: number, arming: Arming = {}) => {
      state.countdown = n
      state.skip = arming.skip
      state.after = arming.after
    },
    disarm: () => {
      state.countdown = 0
    },
    get injected() {
      return state.injected
    },
    /** The statement the last fault was injected at. */
    get at() {
      return state.at
    },
    get armed() {
      return state.countdown > 0
    }
  }
}
