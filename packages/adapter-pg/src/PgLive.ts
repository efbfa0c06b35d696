import { AccountsCache } from "@catalog-sync/core"
import { type PersistencePorts, SqlAccounts, layer as sqlPorts } from "@catalog-sync/adapter-sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer } from "effect"
import { Reactivity } from "effect/reactivity"
import { type Migrator, SqlClient, SqlError } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import { migrate } from "./Migrations.js"
import * as PgAccountCommits from "./PgAccountCommits.js"
import type { PgConfig } from "./PgConfig.js"

export type { PgConfig } from "./PgConfig.js"

const millis = (duration: Duration.Input) => Math.max(0, Math.round(Duration.toMillis(duration)))

/** Statement texts each connection keeps prepared, the least recently used going first. */
export const preparedStatements = 200

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/**
 * The client over its pool. `statement_timeout` is a startup parameter of every connection, so no
 * statement escapes it. Statements run as named prepared statements, so that PostgreSQL parses and plans
 * each text once per connection instead of at every execution (at a 1 ms round trip this took a create's
 * database CPU down by about a third); adapter-sql pads `IN` lists to powers of two, so that lists of up to
 * 32 ids make a handful of texts per statement, and a connection keeps the `preparedStatements` texts used
 * last. No statement reads `*`, so a migration that adds columns cannot change a prepared statement's
 * result type under a running instance.
 *
 * An interrupted statement (e.g. of a request whose client went away) is drained on its own connection;
 * one still running after a short grace is cancelled with a CancelRequest for that connection's session,
 * which is then retired, so that a cancellation never reaches the statement of another request.
 */
const client = (config: PgConfig) =>
  Effect.gen(function* () {
    const connectTimeout = millis(config.connectTimeout ?? Duration.seconds(10))
    const created = yield* PgClient.make({
      url: config.url,
      maxConnections: config.poolSize ?? 10,
      connectTimeout,
      acquireTimeout: connectTimeout,
      applicationName: config.applicationName ?? "catalog-sync",
      startupParameters: { statement_timeout: String(millis(config.statementTimeout ?? Duration.seconds(30))) },
      prepare: true,
      preparedStatementCacheSize: preparedStatements
    })
    // Fail at start, with the driver's reason, rather than on the first request.
    yield* created`SELECT 1`.pipe(
      Effect.mapError(
        (error) =>
          new SqlError.SqlError({
            reason: new SqlError.ConnectionError({
              cause: error,
              message: `cannot connect to PostgreSQL: ${describe(error.reason.cause ?? error)}`,
              operation: "connect"
            })
          })
      )
    )
    return created
  })

/** The pool's connections at this moment, as the client's pool counts them (no query: plain fields). */
export interface PoolUse {
  /** Open connections, idle or in use. */
  readonly total: number
  readonly idle: number
  /** Queries or transactions waiting for a connection because all `max` are in use. */
  readonly waiting: number
  /** `poolSize`: the most connections the pool opens. */
  readonly max: number
}

/** Reads the pool's use, for the metrics scrape (`PgClient.poolStats`). */
export class PgPoolUse extends Context.Service<PgPoolUse, () => PoolUse>()("@catalog-sync/adapter-pg/PgPoolUse") {}

/**
 * A migrated PostgreSQL database: the `SqlClient` (and the driver's `PgClient`) over a connection pool,
 * with pending migrations applied while the layer is built. Several instances may build it at once.
 */
export const PgLive = (
  config: PgConfig
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | PgPoolUse, SqlError.SqlError | Migrator.MigrationError> => {
  const pgClient = PgClient.layerFrom(client(config))
  const use = Layer.effect(
    PgPoolUse,
    Effect.map(PgClient.PgClient, (created) => () => {
      // The pool's count, read synchronously: `poolStats` only reads its fields.
      const stats = Effect.runSync(created.poolStats)
      return { total: stats.idle + stats.used, idle: stats.idle, waiting: stats.pending, max: stats.max }
    })
  )
  const migrated = Layer.effectDiscard(migrate).pipe(
    Layer.provideMerge(Layer.merge(pgClient, use.pipe(Layer.provide(pgClient))))
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
        driver: "pg",
        spanAttributes: [["db.system.name", "postgresql"]]
      })
    ).pipe(Effect.provide(Reactivity.layer))
  )

/**
 * The persistence ports of `@catalog-sync/core` (catalog, mappings, transactions, change log, accounts
 * with cached key lookups kept exact by notifications, idempotency, inventory) on a migrated PostgreSQL
 * database, plus its `SqlClient` for other SQL adapters that share the pool, such as `SqlRateLimiter.layer`.
 */
export const layer = (
  config: PgConfig
): Layer.Layer<
  PersistencePorts | PgClient.PgClient | SqlClient.SqlClient | PgPoolUse,
  SqlError.SqlError | Migrator.MigrationError
> =>
  Layer.merge(
    sqlPorts,
    AccountsCache.layer.pipe(Layer.provide(SqlAccounts.layer), Layer.provide(PgAccountCommits.layer(config)))
  ).pipe(Layer.provideMerge(PgLive(config)))
