import { JobAdmin } from "@catalog-sync/core"
import type { SqlClient } from "effect/sql"
import { Clock, Effect } from "effect"
import { jobKinds, pendingStates, queueGroups } from "../Observability/JobQueueStats.js"
import { describePostgres, type ServerConfig } from "../ServerConfig.js"
import { databaseFile } from "../Startup.js"

/**
 * `catalog-sync status`: what an operator checks first. Queue depth by kind and state, the oldest queued
 * job (a growing age means the workers are stopped or cannot keep up), the companies whose media jobs are
 * paused by a storage refusal (resume them with `jobs resume`), and the database this configuration uses.
 */
export const status = (
  config: ServerConfig
): Effect.Effect<unknown, unknown, SqlClient.SqlClient | JobAdmin.JobAdmin> =>
  Effect.gen(function* () {
    const groups = yield* queueGroups
    const now = yield* Clock.currentTimeMillis
    const queue = Object.fromEntries(
      pendingStates.map((state) => [
        state,
        Object.fromEntries(
          jobKinds.map((kind) => [kind, groups.find((g) => g.kind === kind && g.state === state)?.count ?? 0])
        )
      ])
    )
    const oldest = groups
      .filter((group) => group.state === "queued" && group.oldestQueuedAt !== null)
      .sort((a, b) => a.oldestQueuedAt! - b.oldestQueuedAt!)[0]
    const paused = yield* Effect.flatMap(JobAdmin.JobAdmin, (jobs) => jobs.paused())
    const pausedByCompany = new Map<string, number>()
    for (const job of paused) pausedByCompany.set(job.company_id, (pausedByCompany.get(job.company_id) ?? 0) + 1)
    return {
      database:
        config.postgres === undefined
          ? { engine: "sqlite", file: databaseFile(config) }
          : { engine: "postgresql", at: describePostgres(config.postgres) },
      queue,
      oldest_queued:
        oldest === undefined
          ? null
          : { kind: oldest.kind, age_seconds: Math.max(0, Math.round((now - oldest.oldestQueuedAt!) / 1000)) },
      paused_media_companies: Array.from(pausedByCompany, ([company_id, jobs]) => ({ company_id, paused_jobs: jobs }))
    }
  })
