import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Migrations } from "@catalog-sync/adapter-sql"

/**
 * The advisory lock that serialises migrations across instances. The two-key form lives in a lock space
 * apart from the one-key `pg_advisory_xact_lock(hashtext(...))` locks of the adapters, so they can never
 * collide.
 */
export const lockKey = [0x63_61_74_73, 1] as const

/**
 * Run first in the migrations' transaction (`Migrations.migrate`'s `exclusive`). Several instances may
 * start at once, and `Migrator` alone races on PostgreSQL: it creates its table outside its transaction,
 * so two sessions starting on an empty database both try, and one fails with a unique violation in the
 * system catalog. So the transaction first takes a transaction-scoped advisory lock: the other instances
 * wait on it, then find the migrations applied. The lock is released by commit or rollback, also when the
 * instance dies mid-way. The statement timeout is lifted for this transaction only: waiting for another
 * instance's migrations, or building an index on a large table, may take longer than any request should.
 */
export const migrationLock = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`SET LOCAL statement_timeout = 0`
  yield* sql`SELECT pg_advisory_xact_lock(${lockKey[0]}, ${lockKey[1]})`
  // Migrator probes for its table with `::regclass`, and a failed probe would abort this transaction;
  // under the lock the table can be created up front, with the Migrator's own definition.
  yield* sql`CREATE TABLE IF NOT EXISTS ${sql(Migrations.migrationsTable)} (
    migration_id integer primary key,
    created_at timestamp with time zone not null default now(),
    name text not null
  )`
})
