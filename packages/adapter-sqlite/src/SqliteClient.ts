import { DatabaseSync, type StatementSync } from "node:sqlite"
import { Context, Effect, Layer, Option, type Scope, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError, Statement } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"

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
 * still holds. Driver-specific, like a driver client's `backup`; no statement runs for it.
 */
export class SqliteDataVersion extends Context.Service<
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
>()("@catalog-sync/adapter-sqlite/SqliteDataVersion") {}

/** Statements kept prepared per connection; a list of `IN (?, ...)` of every length could grow it without end. */
const keptStatements = 500

/** A prepared statement, with whether it returns rows (node:sqlite's `columns()` allocates on each call). */
interface Prepared {
  readonly statement: StatementSync
  readonly returnsRows: boolean
}

const prepareOn = (db: DatabaseSync, sql: string): Prepared => {
  const statement = db.prepare(sql)
  return { statement, returnsRows: statement.columns().length > 0 }
}

/** The connection's statements, each text prepared once; the oldest goes first when the cache is full. */
const preparing = (db: DatabaseSync) => {
  const prepared = new Map<string, Prepared>()
  return (sql: string): Prepared => {
    let statement = prepared.get(sql)
    if (statement === undefined) {
      statement = prepareOn(db, sql)
      if (prepared.size >= keptStatements) prepared.delete(prepared.keys().next().value!)
      prepared.set(sql, statement)
    }
    return statement
  }
}

type Mode = "rows" | "raw" | "values"

/**
 * node:sqlite's errors carry SQLite's extended result code as `errcode` only; effect/sql's classifier reads
 * it as `errno`, and the adapter's own (`SqlErrors`) reads `errcode`. The driver's error stays the cause.
 */
const failed = (cause: unknown, message: string, operation: string) => {
  if (typeof cause === "object" && cause !== null && "errcode" in cause && !("errno" in cause)) {
    Object.defineProperty(cause, "errno", { value: cause.errcode, enumerable: false })
  }
  return new SqlError.SqlError({ reason: SqlError.classifySqliteError(cause, { message, operation }) })
}

type Param = null | number | bigint | string | NodeJS.ArrayBufferView

/** Runs a prepared statement synchronously: its rows (or values) for a query, `run`'s result for `raw`. */
const runPrepared = (
  { returnsRows, statement }: Prepared,
  params: ReadonlyArray<unknown>,
  mode: Mode,
  safeIntegers: boolean
): unknown => {
  statement.setReadBigInts(safeIntegers)
  const values = params as ReadonlyArray<Param>
  if (!returnsRows) {
    const result = statement.run(...values)
    return mode === "raw" ? result : []
  }
  if (mode !== "values") return statement.all(...values)
  statement.setReturnArrays(true)
  try {
    return statement.all(...values)
  } finally {
    statement.setReturnArrays(false)
  }
}

/** One statement, its failure (to prepare or to run) a SqlError. */
const run = (statementOf: () => Prepared, params: ReadonlyArray<unknown>, mode: Mode) =>
  Effect.withFiber<ReadonlyArray<object>, SqlError.SqlError>((fiber) => {
    let statement: Prepared
    try {
      statement = statementOf()
    } catch (cause) {
      return Effect.fail(failed(cause, "Failed to prepare statement", "prepare"))
    }
    try {
      return Effect.succeed(
        runPrepared(statement, params, mode, fiber.getRef(SqlClient.SafeIntegers)) as ReadonlyArray<object>
      )
    } catch (cause) {
      return Effect.fail(failed(cause, "Failed to execute statement", "execute"))
    }
  })

const rowsOf = (
  effect: Effect.Effect<ReadonlyArray<object>, SqlError.SqlError>,
  transformRows: (<B extends object>(rows: ReadonlyArray<B>) => ReadonlyArray<B>) | undefined
) => (transformRows === undefined ? effect : Effect.map(effect, transformRows))

const values = (effect: Effect.Effect<ReadonlyArray<object>, SqlError.SqlError>) =>
  effect as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError.SqlError>

/** A connection over one node:sqlite database, running each statement synchronously. */
const connectionOn = (prepare: (sql: string) => Prepared): Connection => ({
  execute: (sql, params, transformRows) =>
    rowsOf(
      run(() => prepare(sql), params, "rows"),
      transformRows
    ),
  executeRaw: (sql, params) => run(() => prepare(sql), params, "raw"),
  executeValues: (sql, params) => values(run(() => prepare(sql), params, "values")),
  executeValuesUnprepared: (sql, params) => values(run(() => prepare(sql), params, "values")),
  // Transaction statements (BEGIN, COMMIT, SAVEPOINT ...) come here: fixed texts, so kept prepared too.
  executeUnprepared: (sql, params, transformRows) =>
    rowsOf(
      run(() => prepare(sql), params, "rows"),
      transformRows
    ),
  executeStream: () => Stream.die(new Error("executeStream is not implemented for SQLite"))
})

/**
 * Statements run on any client's writer in this process: a commit of this process is one of them, so a
 * version read before the latest of them may be stale.
 */
let writerStatements = 0

/** Counts each statement the writer runs, at the moment it runs. */
const countingWrites =
  (prepare: (sql: string) => Prepared) =>
  (sql: string): Prepared => {
    writerStatements++
    return prepare(sql)
  }

/**
 * The reader's version, read once per turn of the event loop: under load one turn answers many requests,
 * and each read of `PRAGMA data_version` opens a read transaction on the WAL (file locks), costing a GET
 * about a tenth of its time. What a turn answers arrived before the turn began, so a version read during
 * it is never older than the request; it is read again after any statement of a writer of this process
 * (its commits are seen at once) and from the next turn on (another process's commits).
 */
const heldForTheTurn = (read: () => number | undefined) => {
  let held: number | undefined
  let heldAt = -1
  const release = () => {
    held = undefined
  }
  return (): number | undefined => {
    if (held !== undefined && heldAt === writerStatements) return held
    held = read()
    heldAt = writerStatements
    if (held !== undefined) queueMicrotask(release)
    return held
  }
}

/**
 * A text the reader may answer: a query (a PRAGMA would answer for the reader's connection, not the
 * writer's) that names no write. node:sqlite does not tell whether a prepared statement writes, as
 * better-sqlite3's `readonly` did: a text that only mentions a write keyword goes to the writer, which
 * answers it as well, and the reader, `query_only`, refuses any write that would get past this.
 */
const isQuery = /^\s*(SELECT|WITH)\b/i
const namesWrite = /\b(INSERT|UPDATE|DELETE|REPLACE)\b/i

/** SQLITE_READONLY and its extended codes: what the `query_only` reader answers to a write. */
const isReadOnlyRefusal = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "errcode" in cause && ((cause.errcode as number) & 0xff) === 8

/**
 * Which statements the reader answers: each text prepared on it once, kept when it only reads; any other
 * text (a write, a PRAGMA, one the reader cannot prepare, such as a table created in an open transaction)
 * is undefined, for the writer.
 */
const readerStatements = (reader: DatabaseSync) => {
  const prepared = new Map<string, Prepared | false>()
  const keep = (sql: string, statement: Prepared | false) => {
    if (prepared.size >= keptStatements) prepared.delete(prepared.keys().next().value!)
    prepared.set(sql, statement)
  }
  return {
    statementFor: (sql: string): Prepared | undefined => {
      const known = prepared.get(sql)
      if (known !== undefined) return known === false ? undefined : known
      if (!isQuery.test(sql) || namesWrite.test(sql)) {
        keep(sql, false)
        return undefined
      }
      let statement: Prepared
      try {
        statement = prepareOn(reader, sql)
      } catch {
        // Not kept: the text may become preparable (a committed migration); the writer reports the error now.
        return undefined
      }
      keep(sql, statement.returnsRows ? statement : false)
      return statement.returnsRows ? statement : undefined
    },
    /** A text the reader refused as a write: the writer answers it from now on. */
    refused: (sql: string) => keep(sql, false)
  }
}

const open = (filename: string, busyTimeoutMillis: number) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const db = new DatabaseSync(filename)
        try {
          db.exec(`PRAGMA busy_timeout = ${Math.min(2_147_483_647, busyTimeoutMillis)}`)
        } catch (cause) {
          db.close()
          throw cause
        }
        return db
      },
      catch: (cause) => failed(cause, `cannot open ${filename}`, "connect")
    }),
    (db) => Effect.sync(() => db.close())
  )

const pragmas = (db: DatabaseSync, settings: ReadonlyArray<string>) =>
  Effect.try({
    // A prepared statement, not `exec`: `journal_mode` answers a row, and its SQLITE_BUSY keeps its code.
    try: () => settings.forEach((setting) => db.prepare(`PRAGMA ${setting}`).all()),
    catch: (cause) => failed(cause, `cannot set ${settings.join(", ")}`, "connect")
  })

const isFile = (filename: string) => filename !== ":memory:" && filename !== ""

/**
 * A SQLite `SqlClient` (built with effect/sql's own `SqlClient.make`) on node:sqlite, over two
 * connections to the file:
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
  readonly [SqlClient.SqlClient, Context.Service.Shape<typeof SqliteDataVersion>],
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

    const semaphore = yield* Semaphore.make(1)
    const writer = connectionOn(countingWrites(preparing(writerDb)))
    const onWriter = <A, E>(effect: Effect.Effect<A, E>) => semaphore.withPermits(1)(effect)
    const reads = readerDb === undefined ? undefined : readerStatements(readerDb)
    // A refusal of the reader (a write that got past `isQuery`) is answered by the writer, as every later run.
    const onReader = <A>(
      sql: string,
      read: Effect.Effect<A, SqlError.SqlError>,
      onWriterInstead: Effect.Effect<A, SqlError.SqlError>
    ) =>
      Effect.catchIf(
        read,
        (error) => isReadOnlyRefusal(error.reason.cause),
        () => {
          reads?.refused(sql)
          return onWriterInstead
        }
      )
    const outside: Connection = {
      execute: (sql, params, transformRows) => {
        const statement = reads?.statementFor(sql)
        const onTheWriter = onWriter(writer.execute(sql, params, transformRows))
        return statement === undefined
          ? onTheWriter
          : onReader(
              sql,
              rowsOf(
                run(() => statement, params, "rows"),
                transformRows
              ),
              onTheWriter
            )
      },
      executeValues: (sql, params) => {
        const statement = reads?.statementFor(sql)
        const onTheWriter = onWriter(writer.executeValues(sql, params))
        return statement === undefined
          ? onTheWriter
          : onReader(sql, values(run(() => statement, params, "values")), onTheWriter)
      },
      executeValuesUnprepared: (sql, params) => onWriter(writer.executeValuesUnprepared(sql, params)),
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
      Effect.andThen(restore(semaphore.takeScoped(1)), handOut(writer))
    )

    const client = yield* SqlClient.make({
      acquirer: handOut(outside),
      // A statement outside a transaction borrows the connection without a scope of its own: `outside`
      // takes the writer's permit itself where it needs it.
      borrower: (f) => Effect.flatMap(handOut(outside), f),
      transactionAcquirer,
      // A failed statement may have ended the transaction already (SQLite rolls back on some errors).
      isTransaction: () => writerDb.isTransaction,
      compiler: Statement.makeCompilerSqlite(),
      driver: "sqlite-node",
      spanAttributes: [["db.system.name", "sqlite"]]
    })

    const versionOn = (db: DatabaseSync) => {
      const statement = db.prepare("PRAGMA data_version")
      statement.setReturnArrays(true)
      return () => {
        try {
          return (statement.get() as unknown as [number] | undefined)?.[0]
        } catch {
          return undefined
        }
      }
    }
    const readerVersion = readerDb === undefined ? () => undefined : heldForTheTurn(versionOn(readerDb))
    const writerVersion = versionOn(writerDb)
    const versions = SqliteDataVersion.of({
      anyCommit: readerVersion,
      otherCommits: Effect.map(semaphore.withPermitsIfAvailable(1)(Effect.sync(writerVersion)), (version) =>
        Option.flatMap(version, Option.fromUndefinedOr)
      )
    })
    return [client, versions] as const
  })

/** The client as the `SqlClient`, with its `SqliteDataVersion`. */
export const layer = (
  config: SqliteClientConfig
): Layer.Layer<SqlClient.SqlClient | SqliteDataVersion, SqlError.SqlError> =>
  Layer.effectContext(
    Effect.map(make(config), ([client, versions]) =>
      Context.make(SqlClient.SqlClient, client).pipe(Context.add(SqliteDataVersion, versions))
    )
  ).pipe(Layer.provide(Reactivity.layer))
