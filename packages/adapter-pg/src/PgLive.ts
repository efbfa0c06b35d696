import { AccountsCache } from "@catalog-sync/core"
import { type PersistencePorts, SqlAccounts, layer as sqlPorts } from "@catalog-sync/adapter-sql"
import { Reactivity } from "@effect/experimental"
import { type Migrator, SqlClient, SqlError } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { migrate } from "./Migrations.js"
import * as PgAccountsVersion from "./PgAccountsVersion.js"
import { preparingStatements } from "./PreparedStatements.js"
import type { PgConfig } from "./PgConfig.js"

export type { PgConfig } from "./PgConfig.js"

const millis = (duration: Duration.DurationInput) => Math.max(0, Math.round(Duration.toMillis(duration)))

/**
 * The pool. `PgClient.layer` builds one too, but cannot set a statement timeout; node-postgres sends
 * `statement_timeout` as a startup parameter of every connection, so no statement escapes it.
 */
const pool = (config: PgConfig) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const created = preparingStatements(
          new pg.Pool({
            connectionString: Redacted.value(config.url),
            max: config.poolSize ?? 10,
            connectionTimeoutMillis: millis(config.connectTimeout ?? Duration.seconds(10)),
            statement_timeout: millis(config.statementTimeout ?? Duration.seconds(30)),
            application_name: config.applicationName ?? "catalog-sync"
          })
        )
        // An idle connection that breaks (server restart, network) emits here; the pool drops it and the
        // next query opens a new one. Without a listener node would crash the process.
        created.on("error", () => {})
        try {
          // Fail at start, with the driver's reason, rather than on the first request.
          await created.query("SELECT 1")
        } catch (cause) {
          await created.end().catch(() => {})
          throw cause
        }
        return withoutCancellation(created)
      },
      catch: (cause) => new SqlError.SqlError({ cause, message: `cannot connect to PostgreSQL: ${describe(cause)}` })
    }),
    (created) => Effect.promise(() => created.end()).pipe(Effect.timeoutOption("5 seconds"))
  )

/**
 * @effect/sql-pg cancels the statement of an interrupted query (e.g. of a request whose client went
 * away) with `SELECT pg_cancel_backend(<pid>)` sent through this same pool. That statement may run
 * after the interrupted connection went back to the pool and was taken by another request, whose
 * statement it then cancels (57014, answered 503 to a client that did nothing wrong). Statements here
 * are short and bounded by statement_timeout, so an interrupted one is left to finish instead:
 * node-postgres runs the connection's next query only after it, and no other request is cancelled.
 */
export const withoutCancellation = (created: pg.Pool): pg.Pool => {
  const query = created.query.bind(created) as (...args: Array<unknown>) => unknown
  created.query = ((...args: Array<unknown>) => {
    if (typeof args[0] === "string" && /^SELECT pg_cancel_backend\(\d+\)$/.test(args[0])) {
      const callback = args.find((arg): arg is (error: Error | undefined) => void => typeof arg === "function")
      if (callback === undefined) return Promise.resolve({ rows: [], rowCount: 0 })
      queueMicrotask(() => callback(undefined))
      return undefined
    }
    return query(...args)
  }) as typeof created.query
  return created
}

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** The pool's connections at this moment, as node-postgres counts them (no query: plain fields). */
export interface PoolUse {
  /** Open connections, idle or in use. */
  readonly total: number
  readonly idle: number
  /** Queries or transactions waiting for a connection because all `max` are in use. */
  readonly waiting: number
  /** `poolSize`: the most connections the pool opens. */
  readonly max: number
}

/** Reads the pool's use, for the metrics scrape; @effect/sql-pg's client does not expose its pool. */
export class PgPoolUse extends Context.Tag("@catalog-sync/adapter-pg/PgPoolUse")<PgPoolUse, () => PoolUse>() {}

/** The pool as a layer of its own, so that both the client and `PgPoolUse` are built on the same one. */
class PgPool extends Context.Tag("@catalog-sync/adapter-pg/PgPool")<PgPool, pg.Pool>() {}

/**
 * A migrated PostgreSQL database: the `SqlClient` (and the driver's `PgClient`) over a connection pool,
 * with pending migrations applied while the layer is built. Several instances may build it at once.
 */
export const PgLive = (
  config: PgConfig
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | PgPoolUse, SqlError.SqlError | Migrator.MigrationError> => {
  const client = Layer.unwrapEffect(
    Effect.map(PgPool, (created) =>
      // The pool's own layer ends it; the client only borrows it.
      PgClient.layerFromPool({
        acquire: Effect.succeed(created),
        applicationName: config.applicationName ?? "catalog-sync"
      })
    )
  )
  const use = Layer.effect(
    PgPoolUse,
    Effect.map(PgPool, (created) => () => ({
      total: created.totalCount,
      idle: created.idleCount,
      waiting: created.waitingCount,
      max: created.options.max ?? 10
    }))
  )
  const migrated = Layer.effectDiscard(migrate).pipe(
    Layer.provideMerge(Layer.merge(client, use)),
    Layer.provide(Layer.scoped(PgPool, pool(config)))
  )
  const wrap = config.wrapConnection
  return wrap === undefined ? migrated : wrappedClient(wrap).pipe(Layer.provideMerge(migrated))
}

/** The `SqlClient` over the driver's, with each statement's connection (a reserved one) wrapped. */
const wrappedClient = (wrap: (connection: Connection) => Connection) =>
  Layer.effect(
    SqlClient.SqlClient,
    Effect.flatMap(PgClient.PgClient, (client) =>
      SqlClient.make({
        acquirer: Effect.map(client.reserve, wrap),
        compiler: PgClient.makeCompiler(),
        spanAttributes: [["db.system.name", "postgresql"]]
      })
    ).pipe(Effect.provide(Reactivity.layer))
  )

/**
 * The persistence ports of `@catalog-sync/core` (catalog, mappings, transactions, change log, accounts
 * with cached key lookups kept exact by notifications, idempotency, inventory) on a migrated PostgreSQL database, plus its `SqlClient` for other SQL adapters
 * that share the pool, such as `SqlRateLimiter.layer`.
 */
export const layer = (
  config: PgConfig
): Layer.Layer<
  PersistencePorts | PgClient.PgClient | SqlClient.SqlClient | PgPoolUse,
  SqlError.SqlError | Migrator.MigrationError
> =>
  Layer.merge(
    sqlPorts,
    AccountsCache.layer.pipe(Layer.provide(SqlAccounts.layer), Layer.provide(PgAccountsVersion.layer(config)))
  ).pipe(Layer.provideMerge(PgLive(config)))
