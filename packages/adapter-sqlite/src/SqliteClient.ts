import BetterSqlite3 from "better-sqlite3"
import { Reactivity } from "@effect/experimental"
import { SqlClient, SqlError, Statement } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { Context, Effect, Layer, Option, Scope, Stream } from "effect"

/** Where and how the client opens the database file. */
export interface SqliteClientConfig {
  readonly filename: string
  /** How long a statement waits for another process's lock before failing with SQLITE_BUSY. */
  readonly busyTimeoutMillis: number
  /**
   * Wraps the connections the client hands out, so that everything the client runs passes through it:
   * each statement once, reads answered by the reader included (tests that count or fail statements).
   */
  readonly wrapConnection?: ((connection: Connection) => Connection) | undefined
}

/**
 * `PRAGMA data_version` of the client's two connections, read synchronously (a few microseconds, where a
 * statement through the client costs tens): what was read from the database while it stays the same
 * still holds. Driver-specific, like a driver client's `export` or `backup`; no statement runs for it.
 */
export class SqliteDataVersion extends Context.Tag("@catalog-sync/adapter-sqlite/SqliteDataVersion")<
  SqliteDataVersion,
  {
    /**
     * On the reader: moves with every commit of any connection, this client's writer included. Undefined
     * when it cannot be known (an in-memory database has no reader, a failed read).
     */
    readonly anyCommit: () => number | undefined
    /**
     * On the writer, when no transaction holds it: moves with the commits of other connections only (the
     * admin CLI, another process). None while the writer is in a transaction, whose snapshot it would
     * read, or when the read fails.
     */
    readonly otherCommits: Effect.Effect<Option.Option<number>>
  }
>() {}

/** Statements kept prepared per connection; a list of `IN (?, ...)` of every length could grow it without end. */
const keptStatements = 500

type Prepared = BetterSqlite3.Statement<Array<unknown>, unknown>

/** The connection's statements, each text prepared once; the oldest goes first when the cache is full. */
const preparing = (db: BetterSqlite3.Database) => {
  const prepared = new Map<string, Prepared>()
  return (sql: string): Prepared => {
    let statement = prepared.get(sql)
    if (statement === undefined) {
      statement = db.prepare(sql)
      if (prepared.size >= keptStatements) prepared.delete(prepared.keys().next().value!)
      prepared.set(sql, statement)
    }
    return statement
  }
}

type Mode = "rows" | "raw" | "values"

const failed = (cause: unknown) => new SqlError.SqlError({ cause, message: "Failed to execute statement" })

/** Runs a prepared statement synchronously: its rows (or values) for a query, `run`'s result for `raw`. */
const runPrepared = (statement: Prepared, params: ReadonlyArray<unknown>, mode: Mode, safeIntegers: boolean) => {
  statement.safeIntegers(safeIntegers)
  if (!statement.reader) {
    const result = statement.run(...params)
    return mode === "raw" ? result : []
  }
  if (mode !== "values") return statement.all(...params)
  statement.raw(true)
  try {
    return statement.all(...params)
  } finally {
    statement.raw(false)
  }
}

/** One statement, its failure (to prepare or to run) a SqlError. */
const run = (statementOf: () => Prepared, params: ReadonlyArray<unknown>, mode: Mode) =>
  Effect.withFiberRuntime<ReadonlyArray<any>, SqlError.SqlError>((fiber) => {
    try {
      const safeIntegers = Context.get(fiber.currentContext, SqlClient.SafeIntegers)
      return Effect.succeed(runPrepared(statementOf(), params, mode, safeIntegers) as ReadonlyArray<any>)
    } catch (cause) {
      return Effect.fail(failed(cause))
    }
  })

const rowsOf = (
  effect: Effect.Effect<ReadonlyArray<any>, SqlError.SqlError>,
  transformRows: (<B extends object>(rows: ReadonlyArray<B>) => ReadonlyArray<B>) | undefined
) => (transformRows === undefined ? effect : Effect.map(effect, transformRows))

const values = (effect: Effect.Effect<ReadonlyArray<any>, SqlError.SqlError>) =>
  effect as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError.SqlError>

/** A connection over one better-sqlite3 database, running each statement synchronously. */
const connectionOn = (prepare: (sql: string) => Prepared): Connection => ({
  execute: (sql, params, transformRows) =>
    rowsOf(
      run(() => prepare(sql), params, "rows"),
      transformRows
    ),
  executeRaw: (sql, params) => run(() => prepare(sql), params, "raw"),
  executeValues: (sql, params) => values(run(() => prepare(sql), params, "values")),
  // Transaction statements (BEGIN, COMMIT, SAVEPOINT ...) come here: fixed texts, so kept prepared too.
  executeUnprepared: (sql, params, transformRows) =>
    rowsOf(
      run(() => prepare(sql), params, "rows"),
      transformRows
    ),
  executeStream: () => Stream.dieMessage("executeStream is not implemented for SQLite")
})

/** A text the reader may answer: a query (a PRAGMA would answer for the reader's connection, not the writer's). */
const isQuery = /^\s*(SELECT|WITH)\b/i

/**
 * Which statements the reader answers: each text prepared on it once, kept when it only reads; any other
 * text (a write, a PRAGMA, one the reader cannot prepare, such as a table created in an open transaction)
 * is undefined, for the writer.
 */
const readerStatements = (reader: BetterSqlite3.Database) => {
  const prepared = new Map<string, Prepared | false>()
  return (sql: string): Prepared | undefined => {
    const known = prepared.get(sql)
    if (known !== undefined) return known === false ? undefined : known
    if (!isQuery.test(sql)) return undefined
    let statement: Prepared
    try {
      statement = reader.prepare(sql)
    } catch {
      // Not kept: the text may become preparable (a committed migration); the writer reports the error now.
      return undefined
    }
    const reads = statement.readonly && statement.reader
    if (prepared.size >= keptStatements) prepared.delete(prepared.keys().next().value!)
    prepared.set(sql, reads ? statement : false)
    return reads ? statement : undefined
  }
}

const open = (filename: string, busyTimeoutMillis: number) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => new BetterSqlite3(filename, { timeout: busyTimeoutMillis }),
      catch: (cause) => new SqlError.SqlError({ cause, message: `cannot open ${filename}` })
    }),
    (db) => Effect.sync(() => db.close())
  )

const pragmas = (db: BetterSqlite3.Database, settings: ReadonlyArray<string>) =>
  Effect.try({
    try: () => settings.forEach((setting) => db.pragma(setting)),
    catch: (cause) => new SqlError.SqlError({ cause, message: `cannot set ${settings.join(", ")}` })
  })

const isFile = (filename: string) => filename !== ":memory:" && filename !== ""

/**
 * A SQLite `SqlClient` (built with @effect/sql's own `SqlClient.make`) over two connections to the file:
 *
 * - the writer (WAL, `synchronous = NORMAL`, foreign keys, busy timeout), which a transaction holds
 *   from BEGIN to its end under a one-permit semaphore;
 * - the reader (`query_only`), which answers the queries run outside any transaction, synchronously and
 *   without waiting: from committed data only, and from the latest commit of any connection (no other
 *   fiber's open transaction, nor its snapshot, is ever seen).
 *
 * Any other statement outside a transaction runs on the writer holding its permit for the statement's
 * whole run, so it never lands inside another fiber's transaction. An in-memory database is one
 * connection (a second would be another database): everything runs on the writer.
 */
export const make = (
  config: SqliteClientConfig
): Effect.Effect<
  readonly [SqlClient.SqlClient, Context.Tag.Service<typeof SqliteDataVersion>],
  SqlError.SqlError,
  Scope.Scope | Reactivity.Reactivity
> =>
  Effect.gen(function* () {
    const writerDb = yield* open(config.filename, config.busyTimeoutMillis)
    // WAL lets the reader read while the writer writes; NORMAL syncs at checkpoints only (durable across
    // process crashes, and safe against corruption in WAL mode); foreign keys are per connection.
    yield* pragmas(writerDb, ["journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON"])
    const readerDb = isFile(config.filename) ? yield* open(config.filename, config.busyTimeoutMillis) : undefined
    if (readerDb !== undefined) yield* pragmas(readerDb, ["query_only = ON"])

    const semaphore = yield* Effect.makeSemaphore(1)
    const writer = connectionOn(preparing(writerDb))
    const onWriter = <A, E>(effect: Effect.Effect<A, E>) => semaphore.withPermits(1)(effect)
    const reads = readerDb === undefined ? () => undefined : readerStatements(readerDb)
    const outside: Connection = {
      execute: (sql, params, transformRows) => {
        const statement = reads(sql)
        return statement === undefined
          ? onWriter(writer.execute(sql, params, transformRows))
          : rowsOf(
              run(() => statement, params, "rows"),
              transformRows
            )
      },
      executeValues: (sql, params) => {
        const statement = reads(sql)
        return statement === undefined
          ? onWriter(writer.executeValues(sql, params))
          : values(run(() => statement, params, "values"))
      },
      executeRaw: (sql, params) => onWriter(writer.executeRaw(sql, params)),
      executeUnprepared: (sql, params, transformRows) => onWriter(writer.executeUnprepared(sql, params, transformRows)),
      executeStream: writer.executeStream
    }
    // Wrapped as handed out, as a pool's connections would be: each statement outside a transaction and
    // each transaction gets a connection of its own to the wrapper.
    const wrap = config.wrapConnection
    const handOut = (connection: Connection) =>
      wrap === undefined ? Effect.succeed(connection) : Effect.sync(() => wrap(connection))

    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1)))
        ),
        handOut(writer)
      )
    )

    const client = yield* SqlClient.make({
      acquirer: handOut(outside),
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]]
    })

    const versionOn = (db: BetterSqlite3.Database) => {
      const statement = db.prepare("PRAGMA data_version").pluck()
      return () => {
        try {
          return statement.get() as number
        } catch {
          return undefined
        }
      }
    }
    const readerVersion = readerDb === undefined ? () => undefined : versionOn(readerDb)
    const writerVersion = versionOn(writerDb)
    const versions = SqliteDataVersion.of({
      anyCommit: readerVersion,
      otherCommits: Effect.map(semaphore.withPermitsIfAvailable(1)(Effect.sync(writerVersion)), (version) =>
        Option.flatMap(version, Option.fromNullable)
      )
    })
    return [client, versions] as const
  })

/** The client as the `SqlClient`, with its `SqliteDataVersion`. */
export const layer = (
  config: SqliteClientConfig
): Layer.Layer<SqlClient.SqlClient | SqliteDataVersion, SqlError.SqlError> =>
  Layer.scopedContext(
    Effect.map(make(config), ([client, versions]) =>
      Context.make(SqlClient.SqlClient, client).pipe(Context.add(SqliteDataVersion, versions))
    )
  ).pipe(Layer.provide(Reactivity.layer))
