import { Context, type Effect, type Option } from "effect"
import type { PersistenceError } from "../Shared/Errors.js"
import type { CompanyId, ConnectionId } from "../Shared/Ids.js"
import type { JobFailure, JobKind, JobState, StoredJob } from "./Job.js"

/** Jobs are visible to the connection that submitted them only. */
export interface JobScope {
  readonly companyId: CompanyId
  readonly connectionId: ConnectionId
}

/** The filters and page of a job list. */
export interface JobListQuery {
  readonly kind?: JobKind | undefined
  /** Jobs with an id greater than this one (ids are time-ordered uuids). */
  readonly cursor?: string | undefined
  readonly limit: number
}

/** An operator's view across connections (the admin CLI): any company, or one; optionally one state and kind. */
export interface JobAdminQuery {
  readonly companyId?: CompanyId | undefined
  readonly state?: JobState | undefined
  readonly kind?: JobKind | undefined
  /** One job by its id, in whichever company it is. */
  readonly id?: string | undefined
  /** Only these jobs, in whichever companies they are (housekeeping reads the jobs of staged images). */
  readonly ids?: ReadonlyArray<string> | undefined
  readonly cursor?: string | undefined
  readonly limit: number
}

/** A worker's claim of the next job it may run. */
export interface ClaimRequest {
  readonly workerId: string
  readonly nowMillis: number
  readonly leaseMillis: number
  /** ISO time, for started_at / updated_at. */
  readonly at: string
  /**
   * The company of the job this worker ran last: the claim prefers another company's job (see `claim`),
   * so that one worker alternates between companies instead of running one company's backlog first.
   */
  readonly avoidCompany?: CompanyId | undefined
}

/** What a requeue did: the job queued again, or why not. */
export type Requeue =
  | { readonly _tag: "Requeued"; readonly job: StoredJob }
  | { readonly _tag: "LimitReached" }
  | { readonly _tag: "NotInState"; readonly state: JobState | null }

/**
 * Durable jobs and their leases. Workers claim a job with a lease, extend it while they work and give
 * it up when they finish; a job whose lease expired (its worker died) can be claimed again. Every
 * method that changes a claimed job names the worker and does nothing (returns false) when that worker
 * no longer holds the lease.
 */
export class JobStore extends Context.Service<
  JobStore,
  {
    /**
     * Inserts a queued job unless its connection already has `maxPending` pending jobs (then false).
     * Call it inside a transaction (with the job's own data), so the count and the insert see one state.
     */
    readonly insert: (job: StoredJob, maxPending: number) => Effect.Effect<boolean, PersistenceError>
    readonly get: (scope: JobScope, id: string) => Effect.Effect<Option.Option<StoredJob>, PersistenceError>
    /** A page in id order. */
    readonly list: (scope: JobScope, query: JobListQuery) => Effect.Effect<ReadonlyArray<StoredJob>, PersistenceError>
    /** A page in id order across connections, for operators; never for a request's principal. */
    readonly listAll: (query: JobAdminQuery) => Effect.Effect<ReadonlyArray<StoredJob>, PersistenceError>
    /**
     * Puts a job that is in one of `from` back in the queue for run `run`, with `scopes` (acting for
     * `keyId` from then on when given: the key that retried it), unless its connection has `maxPending`
     * pending jobs. Its `traceParent` becomes the retrying request's (null when that one is not traced),
     * so that the new run links to what restarted it. Call it inside a transaction, as `insert`. With
     * `keepPlace` the job keeps its place in the queue (a media job resumes in upload order); otherwise
     * it goes to the end.
     */
    readonly requeue: (
      scope: JobScope,
      id: string,
      request: {
        readonly from: ReadonlyArray<JobState>
        readonly run: number
        readonly keyId?: string | undefined
        readonly scopes: StoredJob["scopes"]
        readonly nowMillis: number
        readonly at: string
        readonly maxPending: number
        readonly keepPlace?: boolean | undefined
        readonly traceParent: string | null
      }
    ) => Effect.Effect<Requeue, PersistenceError>
    /**
     * Takes a claimable job: queued, or running with an expired lease, and whose connection has no other
     * job under a live lease (so one connection's jobs run one at a time, in order); a media job also
     * waits for the earlier unfinished media jobs of its company and for any paused one. Among them, in
     * queue order (by insert or requeue), it takes the first of a company other than `avoidCompany` that
     * has no job under a live lease; else the first of a company with no job under a live lease; else the
     * first. So companies take turns instead of queueing behind one company's backlog, and concurrent
     * workers spread over companies. The job becomes running under the worker's lease and its attempts
     * grow by one. Several workers and instances may claim at once; each job goes to one of them.
     */
    readonly claim: (request: ClaimRequest) => Effect.Effect<Option.Option<StoredJob>, PersistenceError>
    /** Extends the lease to `leaseUntil`; false when the worker lost it. */
    readonly heartbeat: (id: string, workerId: string, leaseUntil: number) => Effect.Effect<boolean, PersistenceError>
    /** Ends processing in `state` and clears the lease; false when the worker lost it. */
    readonly finish: (
      id: string,
      workerId: string,
      result: { readonly state: JobState; readonly failure: JobFailure | null; readonly at: string }
    ) => Effect.Effect<boolean, PersistenceError>
    /** Gives the job back to the queue at once (shutdown), instead of waiting for the lease to expire. */
    readonly release: (id: string, workerId: string, at: string) => Effect.Effect<boolean, PersistenceError>
    /**
     * Gives every running job back to the queue; returns how many. Only for a start at which no worker
     * of any process can be running (the single-instance SQLite server after a crash), so that the jobs
     * a crash cut off resume at once instead of after their leases.
     */
    readonly releaseAll: (at: string) => Effect.Effect<number, PersistenceError>
  }
>()("@catalog-sync/core/JobStore") {}
