import Database from "better-sqlite3"
import { CommittedReads } from "@catalog-sync/adapter-sql"
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
     * The rows of a SELECT or WITH query that writes nothing, read on the side connection (committed data
     * only); undefined for any other statement, when it fails, or when there is no side connection.
     */
    readonly read: (sql: string, params: ReadonlyArray<unknown>) => ReadonlyArray<object> | undefined
  }
>() {}

const unknown = SqliteCommits.of({ current: () => undefined, read: () => undefined })

/** Statements kept prepared on the side connection; a list of `IN (?, ...)` of every length could grow it without end. */
const keptStatements = 500

const isQuery = /^\s*(SELECT|WITH)\s/i

/** `read` over a side connection: each text prepared once, `false` kept for a text it does not serve. */
const reader = (db: Database.Database) => {
  const prepared = new Map<string, Database.Statement | false>()
  const prepare = (sql: string): Database.Statement | false => {
    let statement: Database.Statement | false = false
    try {
      const made = db.prepare(sql)
      if (made.readonly && made.reader) statement = made
    } catch {
      // Not preparable here: the client's own path reports it.
    }
    // The oldest text goes first; the hot reads are prepared again at once if they were among them.
    if (prepared.size >= keptStatements) prepared.delete(prepared.keys().next().value!)
    prepared.set(sql, statement)
    return statement
  }
  return (sql: string, params: ReadonlyArray<unknown>): ReadonlyArray<object> | undefined => {
    // A PRAGMA would answer for the side connection, not the server's; writes are not kept at all.
    const statement = prepared.get(sql) ?? (isQuery.test(sql) ? prepare(sql) : false)
    if (statement === false) return undefined
    try {
      return statement.all(...params) as ReadonlyArray<object>
    } catch {
      return undefined
    }
  }
}

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
        read: reader(db.value),
        current: () => {
          try {
            return statement.get() as number
          } catch {
            return undefined
          }
        }
      })
    })
  )

/**
 * The SQL adapters' `CommittedReads` on the side connection: reads outside a transaction skip the
 * client's per-statement path (span, scope, semaphore, prepared-statement cache), and they no longer see
 * another request's open transaction on the server's one connection. Absent for an in-memory database.
 */
export const committedReads: Layer.Layer<never, never, SqliteCommits> = Layer.effectContext(
  Effect.map(SqliteCommits, (commits) =>
    // Typed as providing nothing: the adapters look it up as an option.
    commits === unknown
      ? Context.empty()
      : (Context.make(CommittedReads, CommittedReads.of({ read: commits.read })) as unknown as Context.Context<never>)
  )
)
