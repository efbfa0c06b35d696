/**
 * The persistence ports of `@catalog-sync/core`, written once over `effect/sql`'s `SqlClient`. Driver
 * packages (adapter-sqlite, adapter-pg) provide the client and the migrations of the logical schema
 * described in `SCHEMA.md`.
 *
 * @packageDocumentation
 */
import type {
  Accounts,
  AuditLog,
  CatalogRepository,
  ChangeLog,
  IdempotencyStore,
  ImportStore,
  InventoryRepository,
  JobStore,
  Mappings,
  MediaRepository,
  People,
  Transactor
} from "@catalog-sync/core"
import type { SqlClient } from "effect/sql"
import { Layer } from "effect"
import * as SqlAccounts from "./SqlAccounts.js"
import * as SqlAudit from "./SqlAudit.js"
import * as SqlCatalogRepository from "./SqlCatalogRepository.js"
import * as SqlChangeLog from "./SqlChangeLog.js"
import * as SqlIdempotencyStore from "./SqlIdempotencyStore.js"
import * as SqlImportStore from "./SqlImportStore.js"
import * as SqlInventoryRepository from "./SqlInventoryRepository.js"
import * as SqlJobStore from "./SqlJobStore.js"
import * as SqlMappings from "./SqlMappings.js"
import * as SqlMediaRepository from "./SqlMediaRepository.js"
import * as SqlPeople from "./SqlPeople.js"
import * as SqlTransactor from "./SqlTransactor.js"

export { backfillComponents } from "./Backfills.js"
/** A bounded cache of values read while nothing was committed, each under the commit version it was read at. */
export * as CommittedReads from "./CommittedReads.js"
/** Caching decorators of the catalog's reads by id and the change feed's heads, kept until the next commit. */
export * as KeptReads from "./KeptReads.js"
/** The logical schema's migrations and the one runner both engines apply them with. */
export * as Migrations from "./Migrations.js"
export { type EngineMigrations, type MigrationName, migrationNames } from "./Migrations.js"
/** The `Accounts` port over `effect/sql`. */
export * as SqlAccounts from "./SqlAccounts.js"
/** The `AuditLog` port over `effect/sql`. */
export * as SqlAudit from "./SqlAudit.js"
/** The `CatalogRepository` port over `effect/sql`. */
export * as SqlCatalogRepository from "./SqlCatalogRepository.js"
/** The `ChangeLog` port over `effect/sql`. */
export * as SqlChangeLog from "./SqlChangeLog.js"
export * as SqlErrors from "./SqlErrors.js"
/** The `IdempotencyStore` port over `effect/sql`. */
export * as SqlIdempotencyStore from "./SqlIdempotencyStore.js"
/** The `ImportStore` port over `effect/sql`. */
export * as SqlImportStore from "./SqlImportStore.js"
/** The `InventoryRepository` port over `effect/sql`. */
export * as SqlInventoryRepository from "./SqlInventoryRepository.js"
/** The `JobStore` port over `effect/sql`. */
export * as SqlJobStore from "./SqlJobStore.js"
/** The `Mappings` port over `effect/sql`. */
export * as SqlMappings from "./SqlMappings.js"
/** The `MediaRepository` port over `effect/sql`. */
export * as SqlMediaRepository from "./SqlMediaRepository.js"
/** The `People` port (panel users, sessions, sign-in failures) over `effect/sql`. */
export * as SqlPeople from "./SqlPeople.js"
/** A `RateLimiter` shared by every instance on one database. */
export * as SqlRateLimiter from "./SqlRateLimiter.js"
/** The `Transactor` port over `effect/sql`. */
export * as SqlTransactor from "./SqlTransactor.js"
/** A connection with every statement passed through one function: for a `wrapConnection` that counts, logs, holds or fails statements. */
export * as StatementHook from "./StatementHook.js"

/** The persistence ports that adapter-sql implements. */
export type PersistencePorts =
  | CatalogRepository.CatalogRepository
  | Mappings.Mappings
  | Transactor.Transactor
  | ChangeLog.ChangeLog
  | Accounts.Accounts
  | IdempotencyStore.IdempotencyStore
  | InventoryRepository.InventoryRepository
  | JobStore.JobStore
  | ImportStore.ImportStore
  | MediaRepository.MediaRepository
  | People.People
  | AuditLog.AuditLog

/**
 * The persistence ports over the `SqlClient` in context; the schema must already be migrated. The shared
 * rate limiter (`SqlRateLimiter.layer`) is not included: a single instance uses core's in-memory one.
 */
export const layer: Layer.Layer<PersistencePorts, never, SqlClient.SqlClient> = Layer.mergeAll(
  SqlCatalogRepository.layer,
  SqlMappings.layer,
  SqlTransactor.layer,
  SqlChangeLog.layer,
  SqlAccounts.layer,
  SqlIdempotencyStore.layer,
  SqlInventoryRepository.layer,
  SqlJobStore.layer,
  SqlImportStore.layer,
  SqlMediaRepository.layer,
  SqlPeople.layer,
  SqlAudit.layer
)
