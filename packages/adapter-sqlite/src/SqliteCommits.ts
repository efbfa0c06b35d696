import Database from "better-sqlite3"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"

/**
 * Whether anything was committed to the database since a moment: `PRAGMA data_version` read on a second
 * connection of the server's own, which moves whenever any other connection commits, the server's main
 * one included. Read synchronously on that connection it costs a few microseconds, where a statement
 * through the shared `SqlClient` costs tens: the hot path reads it first, and what it read from the
 * database when the version was the same still holds.
 */
export class SqliteCommits extends Context.Tag("@catalog-sync/adapter-sqlite/SqliteCommits")<
  SqliteCommits,
  {
    /** The current version, or undefined when it cannot be known (an in-memory database, a failed read). */
    readonly current: () => number | undefined
    /**
     * A one-value query on the side connection, which never takes part in the server's transactions and so
     * reads committed data only; its runner answers the first column of the first row, or undefined when it
     * fails. Undefined when there is no side connection or the query does not prepare.
     */
    readonly prepareValue: (sql: string) => ((...params: ReadonlyArray<unknown>) => unknown) | undefined
  }
>() {}

const unknown = SqliteCommits.of({ current: () => undefined, prepareValue: () => undefined })

/**
 * The side connection to `filename`, opened once the `SqlClient` in context has created and migrated it.
 * It never writes (`query_only`) and never waits: a busy database answers "unknown", and callers then
 * read through the `SqlClient` as they would without it.
 */
export const layer = (filename: string): Layer.Layer<SqliteCommits, never, SqlClient.SqlClient> =>
  Layer.scoped(
    SqliteCommits,
    Effect.gen(function* () {
      yield* SqlClient.SqlClient
      if (filename === ":memory:" || filename === "") return unknown
      const db = yield* Effect.acquireRelease(
        Effect.try(() => new Database(filename, { fileMustExist: true, timeout: 0 })),
        (db) => Effect.sync(() => db.close())
      ).pipe(Effect.option)
      if (db._tag === "None") return unknown
      const version = yield* Effect.try(() => {
        db.value.pragma("query_only = ON")
        return db.value.prepare("PRAGMA data_version").pluck()
      }).pipe(Effect.option)
      if (version._tag === "None") return unknown
      const statement = version.value
      return SqliteCommits.of({
        current: () => {
          try {
            return statement.get() as number
          } catch {
            return undefined
          }
        },
        prepareValue: (sql) => {
          try {
            const query = db.value.prepare(sql).pluck()
            return (...params) => {
              try {
                return query.get(...params)
              } catch {
                return undefined
              }
            }
          } catch {
            return undefined
          }
        }
      })
    })
  )
