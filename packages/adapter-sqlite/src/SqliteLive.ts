import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs"
import { dirname } from "node:path"
import { AccountsCache } from "@catalog-sync/core"
import {
  KeptReads,
  type PersistencePorts,
  SqlAccounts,
  SqlCatalogRepository,
  SqlChangeLog,
  layer as sqlPorts
} from "@catalog-sync/adapter-sql"
import { type Config, Duration, Effect, Layer } from "effect"
import { type Migrator, type SqlClient, SqlError } from "effect/sql"
import { migrate } from "./Migrations.js"
import * as SqliteClient from "./SqliteClient.js"
import * as SqliteCommitVersion from "./SqliteCommitVersion.js"

/** Where and how to open the SQLite database. */
export interface SqliteConfig {
  /** Path of the database file; its folder is created if missing. `:memory:` works for throwaway use. */
  readonly filename: string
  /** How long a statement waits for another connection's lock before failing with SQLITE_BUSY. Default 5 s. */
  readonly busyTimeout?: Duration.Input | undefined
  /** Wraps every connection the client hands out (tests that count or fail statements); see `SqliteClient`. */
  readonly wrapConnection?: SqliteClient.SqliteClientConfig["wrapConnection"]
}

const isFile = (filename: string) => filename !== ":memory:" && filename !== ""

/**
 * The database holds key hashes and the catalog: its folder is created for the server's user only
 * (0700) and the file readable by it alone (0600), also when an older version created it wider.
 * SQLite gives its -wal and -shm files the database file's mode.
 */
const createPrivately = (filename: string) => {
  mkdirSync(dirname(filename), { recursive: true, mode: 0o700 })
  if (!existsSync(filename)) closeSync(openSync(filename, "a", 0o600))
  else {
    try {
      chmodSync(filename, 0o600)
    } catch {
      // A file the server may open but not change (another owner): its mode is the operator's choice.
    }
  }
}

/**
 * A migrated SQLite database: the `SqlClient` (`SqliteClient`: a writer connection with WAL journaling,
 * `synchronous = NORMAL`, foreign keys enforced and a busy timeout, and a reader for queries outside a
 * transaction) and its `SqliteDataVersion`, with pending migrations applied while the layer is built.
 */
export const SqliteLive = (
  config: SqliteConfig
): Layer.Layer<
  SqlClient.SqlClient | SqliteClient.SqliteDataVersion,
  SqlError.SqlError | Migrator.MigrationError | Config.ConfigError
> => {
  const busyTimeoutMillis = Math.max(0, Math.round(Duration.toMillis(config.busyTimeout ?? Duration.seconds(5))))
  const client = Layer.unwrap(
    Effect.try({
      // SQLite does not create folders; the default database lives under ./data.
      try: () => {
        if (isFile(config.filename)) createPrivately(config.filename)
        return SqliteClient.layer({
          filename: config.filename,
          busyTimeoutMillis,
          wrapConnection: config.wrapConnection
        })
      },
      catch: (cause) =>
        new SqlError.SqlError({
          reason: new SqlError.ConnectionError({
            cause,
            message: `cannot create the folder of ${config.filename}`,
            operation: "connect"
          })
        })
    })
  )
  return Layer.effectDiscard(migrate).pipe(Layer.provideMerge(client))
}

/**
 * The persistence ports of `@catalog-sync/core` (catalog, mappings, transactions, change log, accounts
 * with cached key lookups, idempotency) on a migrated SQLite database, plus its `SqlClient` for other SQL
 * adapters that share it, such as `SqlRateLimiter.layer`. Key lookups, each company's change-feed head
 * and records read by id are served from memory while nothing is committed (`SqliteCommitVersion`).
 */
export const layer = (
  config: SqliteConfig
): Layer.Layer<
  PersistencePorts | SqlClient.SqlClient | SqliteClient.SqliteDataVersion,
  SqlError.SqlError | Migrator.MigrationError | Config.ConfigError
> =>
  // The decorated ports are merged last: they take the place of the plain ones of `sqlPorts`.
  Layer.mergeAll(sqlPorts, keptUntilAnyCommit, cachedAccounts).pipe(Layer.provideMerge(SqliteLive(config)))

/** Records read by id and the change-feed heads, kept until any connection commits (`KeptReads`). */
const keptUntilAnyCommit = Layer.merge(
  KeptReads.catalogLayer.pipe(Layer.provide(SqlCatalogRepository.layer)),
  KeptReads.changeLogLayer.pipe(Layer.provide(SqlChangeLog.layer))
).pipe(Layer.provide(SqliteCommitVersion.anyCommit))

/**
 * Accounts whose key lookups are cached while no other connection commits (see `AccountsCache`, which
 * counts this process's own account writes).
 */
const cachedAccounts = AccountsCache.layer.pipe(
  Layer.provide(SqlAccounts.layer),
  Layer.provide(SqliteCommitVersion.otherCommits)
)
