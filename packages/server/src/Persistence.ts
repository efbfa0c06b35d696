import { Readiness } from "@catalog-sync/adapter-http"
import { layer as pgPorts } from "@catalog-sync/adapter-pg"
import type { PersistencePorts } from "@catalog-sync/adapter-sql"
import { layer as sqlitePorts } from "@catalog-sync/adapter-sqlite"
import { IdempotencyStore, JobStore } from "@catalog-sync/core"
import { Clock, type Config, Duration, Effect, Layer } from "effect"
import { type Migrator, SqlClient, type SqlConnection, type SqlError } from "effect/sql"
import { loggingChanges } from "./Readiness.js"
import type { ServerConfig } from "./ServerConfig.js"
import { databaseFile } from "./Startup.js"

/**
 * The database the server runs on, migrated while the layer builds: PostgreSQL when `DATABASE_URL` is
 * set (several instances may share it and start together), else SQLite under the data folder. On
 * PostgreSQL it also gives `PgPoolUse`, which the metrics scrape reads when present.
 */
export const PersistenceLive = (
  config: ServerConfig,
  wrapConnection?: (connection: SqlConnection.Connection) => SqlConnection.Connection
): Layer.Layer<
  PersistencePorts | SqlClient.SqlClient,
  SqlError.SqlError | Migrator.MigrationError | Config.ConfigError
> =>
  config.postgres === undefined
    ? sqlitePorts({ filename: databaseFile(config), wrapConnection })
    : pgPorts({
        url: config.postgres.url,
        poolSize: config.postgres.poolSize,
        statementTimeout: Duration.millis(config.postgres.statementTimeoutMillis),
        wrapConnection
      })

/**
 * SQLite serves one instance (docs/deploy.md), so at its start no request or job of another process can
 * be running: the idempotency claims and jobs still marked running were cut off by a crash. Giving them
 * back at once lets the clients' retries and the jobs go on now, not after their leases (60 s, and
 * JOB_LEASE_SECONDS).
 */
export const resumeCutOffWork = Layer.effectDiscard(
  Effect.gen(function* () {
    const jobs = yield* JobStore.JobStore
    const idempotency = yield* IdempotencyStore.IdempotencyStore
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    const released = { jobs: yield* jobs.releaseAll(at), idempotency_claims: yield* idempotency.releaseAll }
    if (released.jobs + released.idempotency_claims > 0)
      yield* Effect.logWarning("work cut off by the last stop is resumed", released)
  }).pipe(Effect.orDie)
)

/** GET /ready asks the database; a change of its answer is logged once (see `loggingChanges`). */
export const ReadinessLive = Layer.effect(
  Readiness,
  Effect.flatMap(SqlClient.SqlClient, (sql) => loggingChanges(Effect.asVoid(sql`SELECT 1`)))
)
