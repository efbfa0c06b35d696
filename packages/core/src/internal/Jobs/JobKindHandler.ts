import type { Effect } from "effect"
import type { CurrentPrincipal } from "../../Auth/Principal.js"
import type { ImportReport } from "../../Imports/Import.js"
import type { MediaStorageError } from "../../Media/MediaErrors.js"
import type { PersistenceError, ScopeDenied } from "../../Shared/Errors.js"
import type { JobCounts, JobRecord, StoredJob } from "../../Jobs/Job.js"
import type { JobLimitReached, JobNotRetryable, LeaseLost } from "../../Jobs/JobErrors.js"

/** Why a retry of a job is refused. */
export type RetryError = ScopeDenied | JobNotRetryable | JobLimitReached | PersistenceError

/**
 * What one kind of job does. Imports and media each provide theirs; the worker and the job endpoints
 * dispatch on `job.kind` through `JobKinds` and know nothing of either.
 */
export interface JobKindHandler {
  /** Processes a claimed job for `workerId` and ends it (`JobStore.finish`); fails when the lease is lost. */
  readonly process: (
    job: StoredJob,
    workerId: string,
    leaseMillis: number
  ) => Effect.Effect<void, PersistenceError | LeaseLost | MediaStorageError>
  /** The counts of a page of jobs of this kind, by job id. */
  readonly counts: (jobs: ReadonlyArray<StoredJob>) => Effect.Effect<ReadonlyMap<string, JobCounts>, PersistenceError>
  /** The job's report as the calling principal may read it; null for a kind without one. */
  readonly report: (job: StoredJob) => Effect.Effect<ImportReport | null, PersistenceError, CurrentPrincipal>
  /** Restarts the job for the calling principal, once `authorizeRetry` passed (POST /jobs/{id}/retry). */
  readonly retry: (job: StoredJob) => Effect.Effect<JobRecord, RetryError, CurrentPrincipal>
  /** The retry's checks alone, run before an idempotent replay of the retry too. */
  readonly authorizeRetry: (job: StoredJob) => Effect.Effect<void, ScopeDenied | PersistenceError, CurrentPrincipal>
}
