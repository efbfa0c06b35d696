import { type EngineMigrations, Migrations } from "@catalog-sync/adapter-sql"
import { migrationLock } from "./MigrationLock.js"
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

/** Applies the pending migrations (the one runner, `Migrations.migrate`), other instances waiting on its lock. */
export const migrate = Migrations.migrate(migrations, migrationLock)
