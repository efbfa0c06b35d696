import { Migrator, SqlClient, type SqlError } from "effect/sql"
import { Effect } from "effect"
import type { EngineMigrations } from "@catalog-sync/adapter-sql"
import catalog from "./migrations/0001_catalog.js"
import accounts from "./migrations/0002_accounts.js"
import inventory from "./migrations/0004_inventory.js"
import changeFeed from "./migrations/0005_change_feed.js"
import jobs from "./migrations/0006_jobs.js"
import media from "./migrations/0007_media.js"
import bundleComponents from "./migrations/0008_bundle_components.js"
import idempotencyRunning from "./migrations/0009_idempotency_running.js"
import jobsByState from "./migrations/0010_jobs_by_state.js"
import jobsTraceParent from "./migrations/0011_jobs_trace_parent.js"
import jobsClaimIndexes from "./migrations/0012_jobs_claim_indexes.js"
import companyChangePositions from "./migrations/0013_company_change_positions.js"
import jobsFinished from "./migrations/0014_jobs_finished.js"
import panel from "./migrations/0015_panel.js"

/**
 * The PostgreSQL implementation of every migration that adapter-sql lists (`migrationNames`), so that one
 * id means the same logical schema on both engines. Imported statically: a bundled build has no
 * migrations folder to scan.
 */
export const migrations: EngineMigrations = {
  "0001_catalog": catalog,
  "0002_accounts": accounts,
  "0004_inventory": inventory,
  "0005_change_feed": changeFeed,
  "0006_jobs": jobs,
  "0007_media": media,
  "0008_bundle_components": bundleComponents,
  "0009_idempotency_running": idempotencyRunning,
  "0010_jobs_by_state": jobsByState,
  "0011_jobs_trace_parent": jobsTraceParent,
  "0012_jobs_claim_indexes": jobsClaimIndexes,
  "0013_company_change_positions": companyChangePositions,
  "0014_jobs_finished": jobsFinished,
  "0015_panel": panel
}

/** Name of the table where the migrator records applied migrations. */
export const table = "effect_sql_migrations"

/**
 * The advisory lock that serialises migrations across instances. The two-key form lives in a lock space
 * apart from the one-key `pg_advisory_xact_lock(hashtext(...))` locks of the adapters, so they can never
 * collide.
 */
export const lockKey = [0x63_61_74_73, 1] as const

/**
 * Applies the pending migrations and returns those it ran; a second run is a no-op.
 *
 * Several instances may start at once. `Migrator` alone races on PostgreSQL: it creates its table
 * outside its transaction, so two sessions starting on an empty database both try, and one fails with a
 * unique violation in the system catalog. So everything runs in one transaction that first takes a
 * transaction-scoped advisory lock: the other instances wait on the lock, then find the migrations
 * applied. The lock is released by commit or rollback, also when the instance dies mid-way. The
 * statement timeout is lifted for this transaction only: waiting for another instance's migrations, or
 * building an index on a large table, may take longer than any request should.
 *
 * This is effect/sql's Migrator core; `PgMigrator.run` would add a `pg_dump` of the schema and need
 * FileSystem, Path and CommandExecutor for it.
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError.SqlError,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SET LOCAL statement_timeout = 0`
      yield* sql`SELECT pg_advisory_xact_lock(${lockKey[0]}, ${lockKey[1]})`
      // Migrator probes for its table with `::regclass`, and a failed probe would abort this transaction;
      // under the lock the table can be created up front, with the Migrator's own definition.
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`
      return yield* Migrator.make({})({ loader: Migrator.fromRecord(migrations), table })
    })
  )
})
