import { Schema } from "effect"
import { Int } from "../Resources/CommonFields.js"
import { type CompanyId, type ConnectionId, UUID } from "../Shared/Ids.js"
import type { Scope } from "../Shared/Scope.js"

/**
 * Job states (spec 3). `queued` and `running` are pending and count toward the per-connection limit;
 * `completed` means processing finished (an import's report counts the records that failed), `failed`
 * that it could not finish (its access stopped, a fault it could not get past, an image that cannot be
 * processed), `paused` that image processing waits for its storage to be fixed.
 */
export const JobState = Schema.Literals(["queued", "running", "completed", "failed", "paused"]).annotate({
  identifier: "JobState"
})
export type JobState = typeof JobState.Type

/** The states of a job still to run. */
export const pendingStates: ReadonlyArray<JobState> = ["queued", "running"]
/** States any job can be retried from; an import also from `completed` while records failed. */
export const retryableStates: ReadonlyArray<JobState> = ["failed", "paused"]

/** What a job does: an import of records, or the processing of one uploaded image. */
export const JobKind = Schema.Literals(["import", "media"]).annotate({ identifier: "JobKind" })
export type JobKind = typeof JobKind.Type

/** Pending (queued or running) jobs allowed per connection (spec 8). */
export const maxPendingPerConnection = 20

/** Why a whole job failed (not one of its records): an error code and message. */
export const JobFailure = Schema.Struct({
  code: Schema.String,
  message: Schema.String
}).annotate({ identifier: "JobFailure" })
export type JobFailure = typeof JobFailure.Type

/** A durable job row as the ports store it. Times in epoch milliseconds are for leases and ordering. */
export interface StoredJob {
  readonly id: string
  readonly companyId: CompanyId
  readonly connectionId: ConnectionId
  /** The key that submitted the job; processing acts for its connection with `scopes`. */
  readonly keyId: string
  readonly kind: JobKind
  readonly state: JobState
  /** The effective scopes at submission (or at the last retry). */
  readonly scopes: ReadonlyArray<Scope>
  /** 1 for the first run, +1 for every accepted retry. */
  readonly run: number
  /** How often a worker started processing: runs, plus claims again after a worker was lost. */
  readonly attempts: number
  /** When it last entered the queue (epoch ms). Workers take jobs in the order they entered it. */
  readonly queuedAt: number
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
  readonly failure: JobFailure | null
  readonly createdAt: string
  readonly startedAt: string | null
  readonly finishedAt: string | null
  readonly updatedAt: string
  /**
   * The W3C traceparent of the span that queued the job, when that request was traced: the job's trace
   * links to it. Never part of the job the API returns.
   */
  readonly traceParent: string | null
}

/** A new job of `kind`, queued now for the principal's connection with its current scopes. */
export const queued = (
  principal: {
    readonly company: { readonly id: CompanyId }
    readonly connectionId: ConnectionId
    readonly keyId: string
    readonly scopes: ReadonlySet<Scope>
  },
  kind: JobKind,
  id: string,
  now: { readonly millis: number; readonly at: string },
  traceParent: string | null
): StoredJob => ({
  id,
  companyId: principal.company.id,
  connectionId: principal.connectionId,
  keyId: principal.keyId,
  kind,
  state: "queued",
  scopes: Array.from(principal.scopes),
  run: 1,
  attempts: 0,
  queuedAt: now.millis,
  leaseOwner: null,
  leaseUntil: null,
  failure: null,
  createdAt: now.at,
  startedAt: null,
  finishedAt: null,
  updatedAt: now.at,
  traceParent
})

/** Record counts of a job's report. */
export const JobCounts = Schema.Struct({
  total: Int,
  created: Int,
  updated: Int,
  unchanged: Int,
  failed: Int,
  pending: Int.annotate({ description: "Records not processed yet in the current run." })
}).annotate({ identifier: "JobCounts" })
export type JobCounts = typeof JobCounts.Type

/** Counts of a job with no records. */
export const emptyCounts: JobCounts = { total: 0, created: 0, updated: 0, unchanged: 0, failed: 0, pending: 0 }

/** A job as the API returns it. */
export const JobRecord = Schema.Struct({
  id: UUID,
  kind: JobKind,
  state: JobState,
  counts: JobCounts,
  run: Int.annotate({ description: "1 for the first run, +1 for every retry." }),
  attempts: Int.annotate({
    description: "How often processing started: each run, and each time a job whose worker was lost was taken up again."
  }),
  failure: Schema.NullOr(JobFailure).annotate({
    description: "Why the job as a whole failed; record failures are in the report."
  }),
  created_at: Schema.String,
  started_at: Schema.NullOr(Schema.String),
  finished_at: Schema.NullOr(Schema.String),
  updated_at: Schema.String
}).annotate({ identifier: "Job" })
export type JobRecord = typeof JobRecord.Type

/** A stored job with its counts, as the API returns it. */
export const render = (job: StoredJob, counts: JobCounts): JobRecord => ({
  id: job.id,
  kind: job.kind,
  state: job.state,
  counts,
  run: job.run,
  attempts: job.attempts,
  failure: job.failure,
  created_at: job.createdAt,
  started_at: job.startedAt,
  finished_at: job.finishedAt,
  updated_at: job.updatedAt
})
