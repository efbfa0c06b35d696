import { Migrator, SqlClient, type SqlError } from "effect/sql"
import { Effect } from "effect"

/**
 * The migrations of the logical schema (`SCHEMA.md`), in order, as `Migrator.fromRecord` keys them
 * (`<id>_<name>`). Declared once here: each engine implements every one of them under the same key, and an
 * entry added here without its implementation on both engines does not compile. Append new ones; never
 * edit or reorder an applied one.
 */
export const migrationNames = [
  "0001_catalog",
  "0002_accounts",
  "0004_inventory",
  "0005_change_feed",
  // Jobs came after 0005 in history: a database already at 0005 must still get them, so they run sixth.
  "0006_jobs",
  "0007_media",
  "0008_bundle_components",
  "0009_idempotency_running",
  "0010_jobs_by_state",
  "0011_jobs_trace_parent",
  "0012_jobs_claim_indexes",
  "0013_company_change_positions",
  "0014_jobs_finished",
  "0015_panel"
] as const

/** The name of one migration of the logical schema. */
export type MigrationName = (typeof migrationNames)[number]

/** One engine's migration of every name. */
export type EngineMigrations = {
  readonly [Name in MigrationName]: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>
}

/** Name of the table where the migrator records applied migrations, on both engines. */
export const migrationsTable = "effect_sql_migrations"

/** What `migrate` returns: the migrations it ran, as `[id, name]`. */
export type Applied = ReadonlyArray<readonly [id: number, name: string]>

/**
 * The one migrations runner: applies the pending migrations of `migrations` in one transaction and returns
 * those it ran; a second run is a no-op. `exclusive`, when given, runs first in that transaction and makes
 * other instances that migrate at once wait for this one (PostgreSQL's advisory lock); an engine that
 * serves one instance (SQLite) leaves it out.
 *
 * This is effect/sql's Migrator core. The engines' own runners (`SqliteMigrator.run`, `PgMigrator.run`)
 * add a schema dump that shells out to `sqlite3` or `pg_dump` and makes the caller provide a FileSystem,
 * a Path and a process spawner, so they are not used.
 */
export const migrate = (
  migrations: EngineMigrations,
  exclusive?: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>
): Effect.Effect<Applied, Migrator.MigrationError | SqlError.SqlError, SqlClient.SqlClient> => {
  const run = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: migrationsTable })
  return exclusive === undefined
    ? run
    : Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.andThen(exclusive, run)))
}
