/** What a load is asked to do (LoadOptions) and what it tells at its end (LoadSummary). */
import type { Duration } from "effect"
import type { CsvResource, HeaderMap } from "./CsvMapping.js"
import type { ImageFolders } from "./Input.js"
import type { ResourceProgress, Snapshot } from "./Progress.js"

/**
 * What to load (files, image folders), into which server with which keys, and how (batches, pending jobs, state and
 * report files, dry run).
 */
export interface LoadOptions {
  /** The server's origin, e.g. `http://localhost:8080`. */
  readonly baseUrl: string
  /** One or more keys of the same connection (with the same scopes); each adds its own rate budget. */
  readonly apiKeys: ReadonlyArray<string>
  /** `[resource=]path` of files or folders (see Input.ts). */
  readonly inputs: ReadonlyArray<string>
  readonly images?: ImageFolders
  /** Source CSV headers renamed to the documented columns, per resource (`null` ignores a column). */
  readonly csvColumns?: Partial<Record<CsvResource, HeaderMap>>
  /**
   * The folder of the state file and the report (created if missing). Default: next to the input, in the
   * folder of the first input file (a folder given as input: that folder).
   */
  readonly stateDir?: string
  /** The state file (default `catalog-sync-load.state.jsonl` in `stateDir`); a dry run keeps none. */
  readonly statePath?: string
  /** The failure report (default `catalog-sync-load.failures.jsonl` in `stateDir`, `catalog-sync-load.dry-run.jsonl` for a dry run). */
  readonly reportPath?: string
  /** Sends every batch as a dry run: nothing is written, the report says what would happen. */
  readonly dryRun?: boolean
  /** Re-sends only the records that failed (after the input was fixed). */
  readonly retryFailed?: boolean
  /** Jobs in flight at once (1-20, default 10; the connection's limit is 20 pending jobs). */
  readonly maxPending?: number
  /** Records per batch (1-50, default 50). */
  readonly batchSize?: number
  /** How often in-flight jobs are polled (default 100 ms; polls also pause while batches wait to be sent). */
  readonly pollInterval?: Duration.Input
  /** How often a job that could not finish is retried before its records are reported failed (default 5). */
  readonly maxJobRetries?: number
  readonly appName?: string
  readonly appVersion?: string
  /** Called with the progress every `progressInterval` (default 1 s) and once at the end. */
  readonly onProgress?: (snapshot: Snapshot) => void
  readonly progressInterval?: Duration.Input
}

/** What a load did: progress per resource, failed and deferred records, and where its state and report are. */
export interface LoadSummary {
  readonly dryRun: boolean
  /** 0 for the load itself, n for the n-th `--retry-failed`. */
  readonly round: number
  /** The state file said the load had finished before: nothing was sent. */
  readonly alreadyFinished: boolean
  readonly resources: ReadonlyArray<ResourceProgress>
  /** Records (and images) failed and not fixed by a retry: the lines of the report file. */
  readonly failed: number
  /** Dry run: records whose only failures were references to records of earlier batches of the load. */
  readonly deferred: number
  /** Answers 429 this run met (each retried after its Retry-After); pacing keeps this at 0 in steady state. */
  readonly rateLimited: number
  /** The report file; undefined when nothing failed (no report is written, and an older one is removed). */
  readonly reportPath: string | undefined
  readonly statePath: string | undefined
  readonly elapsedMs: number
}
