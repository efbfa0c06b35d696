import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The jobs not yet ended, counted by kind and state, with the oldest queued one's queue time. */
export interface QueueGroup {
  readonly kind: string
  readonly state: "queued" | "running" | "paused"
  readonly count: number
  /** Epoch ms at which the oldest job of the group entered the queue. */
  readonly oldestQueuedAt: number | null
}

export const jobKinds = ["import", "media"] as const
export const pendingStates = ["queued", "running", "paused"] as const

/**
 * One grouped count over the jobs still pending (ended jobs are counted by the workers' own metrics as
 * they end, so a scrape never scans the job history).
 */
export const queueGroups: Effect.Effect<ReadonlyArray<QueueGroup>, unknown, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    Effect.map(
      sql<{
        readonly kind: string
        readonly state: QueueGroup["state"]
        readonly count: number | string
        readonly oldest: number | string | null
      }>`
      SELECT kind, state, COUNT(*) AS count, MIN(queued_at) AS oldest
      FROM jobs WHERE state IN ('queued', 'running', 'paused')
      GROUP BY kind, state`,
      (rows) =>
        rows.map((row) => ({
          kind: row.kind,
          state: row.state,
          count: Number(row.count),
          oldestQueuedAt: row.oldest === null ? null : Number(row.oldest)
        }))
    )
)
