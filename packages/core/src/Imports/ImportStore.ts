import { Context, type Effect } from "effect"
import type { PersistenceError } from "../Shared/Errors.js"
import type { ResourceName } from "../Resources/Resource.js"
import type { RecordError, RecordStatus } from "./Import.js"
import type { JsonObject } from "../internal/json.js"

/** One record of an import job and its durable result. */
export interface ImportItem {
  readonly jobId: string
  readonly index: number
  readonly resource: ResourceName
  /** The body as sent (not yet decoded: a body that breaks its schema fails its record when processed). */
  readonly body: JsonObject
  readonly externalId: string | null
  readonly status: RecordStatus
  readonly outcome: "created" | "updated" | "unchanged" | null
  readonly recordId: string | null
  readonly error: RecordError | null
  /** The run this result belongs to (the run that will process it, while pending). */
  readonly run: number
  readonly updatedAt: string
}

/** An import's records by outcome. */
export interface ImportCounts {
  readonly total: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly failed: number
  readonly pending: number
}

/**
 * The records of import jobs and their per-record results. `markApplied` is written in the same
 * transaction as the record's catalog write and refuses a record already applied, so a job taken up
 * again after a crash never applies a record twice.
 */
export class ImportStore extends Context.Service<
  ImportStore,
  {
    /** Stores the records of a new job as pending (run 1). */
    readonly insertItems: (items: ReadonlyArray<ImportItem>) => Effect.Effect<void, PersistenceError>
    /** Every record of the job, in index order. */
    readonly items: (jobId: string) => Effect.Effect<ReadonlyArray<ImportItem>, PersistenceError>
    /** Marks a record applied; false (and no change) when it already was. */
    readonly markApplied: (
      jobId: string,
      index: number,
      result: {
        readonly outcome: "created" | "updated" | "unchanged"
        readonly recordId: string
        readonly run: number
        readonly at: string
      }
    ) => Effect.Effect<boolean, PersistenceError>
    /**
     * `markApplied` for many records of one job and run, in as few statements as the engine allows;
     * returns how many were marked (fewer than given when some already were applied).
     */
    readonly markAppliedMany: (
      jobId: string,
      results: ReadonlyArray<{
        readonly index: number
        readonly outcome: "created" | "updated" | "unchanged"
        readonly recordId: string
      }>,
      at: { readonly run: number; readonly at: string }
    ) => Effect.Effect<number, PersistenceError>
    /** Records a failure of a record that is not applied. */
    readonly markFailed: (
      jobId: string,
      index: number,
      result: { readonly error: RecordError; readonly run: number; readonly at: string }
    ) => Effect.Effect<void, PersistenceError>
    /** A retry: failed records become pending in run `run`; returns their indices. */
    readonly resetFailed: (
      jobId: string,
      run: number,
      at: string
    ) => Effect.Effect<ReadonlyArray<number>, PersistenceError>
    /**
     * Deletes up to `limit` import jobs that finished (completed or failed) before `finishedBefore` (an
     * ISO time), oldest first, with their records; returns how many jobs. Queued, running and paused jobs
     * are never touched. Call it inside a transaction: on PostgreSQL it skips a job a retry holds locked.
     */
    readonly purgeFinished: (finishedBefore: string, limit: number) => Effect.Effect<number, PersistenceError>
    /** Counts per job, for job lists. Jobs without records are absent. */
    readonly counts: (
      jobIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, ImportCounts>, PersistenceError>
  }
>()("@catalog-sync/core/ImportStore") {}
