/**
 * The bulk loader: the initial export of a catalog from files in one call. It scans the input once
 * (totals, category depth, images), uploads the images, then sends the records tier by tier (Order.ts)
 * in batches of up to 50 through POST /imports, paced to the rate limit of each key, at most `maxPending`
 * jobs in flight, and settles every job from its report. Each step is logged in a state file first, so a
 * run that was killed continues where it stopped and applies nothing twice.
 */
import { FetchHttpClient, FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Clock, Data, Duration, Effect, Option, Schedule, Stream } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { openAsBlob, statSync } from "node:fs"
import { type Client, make as makeClient } from "../Client.js"
import type { ClientError } from "../Errors.js"
import * as Pacer from "../Pacer.js"
import { type Batch, batches, type InputRecord, maxRecords } from "./Batch.js"
import type { CsvResource } from "./CsvMapping.js"
import type { HeaderMap } from "./CsvMapping.js"
import { type Declared, deferred } from "./DryRun.js"
import {
  type ImageFolders,
  imageFolder,
  type Invalid,
  InputError,
  type Located,
  type MediaInput,
  read,
  type Source,
  sources
} from "./Input.js"
import * as Jobs from "./Jobs.js"
import {
  categoryLevels,
  groupTiers,
  isBundle,
  plan,
  referencedExternalId,
  type Resource,
  resources,
  type Tier,
  tierName
} from "./Order.js"
import { Progress, type ResourceProgress, type Snapshot } from "./Progress.js"
import { invalidFailure, mediaFailure, recordFailure, recordPath, write as writeReport } from "./Report.js"
import * as State from "./State.js"

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
  /** The state file (default `catalog-sync-load.state.jsonl`); a dry run keeps none. */
  readonly statePath?: string
  /** The failure report (default `catalog-sync-load.failures.jsonl`, `catalog-sync-load.dry-run.jsonl` for a dry run). */
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
  readonly pollInterval?: Duration.DurationInput
  /** How often a job that could not finish is retried before its records are reported failed (default 5). */
  readonly maxJobRetries?: number
  readonly appName?: string
  readonly appVersion?: string
  /** Called with the progress every `progressInterval` (default 1 s) and once at the end. */
  readonly onProgress?: (snapshot: Snapshot) => void
  readonly progressInterval?: Duration.DurationInput
}

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
  readonly reportPath: string
  readonly statePath: string | undefined
  readonly elapsedMs: number
}

/** The load could not go on (bad options or input, a refused key, the server unreachable); a rerun resumes. */
export class LoadError extends Data.TaggedError("LoadError")<{ readonly message: string; readonly cause?: unknown }> {}

export const defaultStatePath = "catalog-sync-load.state.jsonl"
export const defaultReportPath = "catalog-sync-load.failures.jsonl"
export const defaultDryRunReportPath = "catalog-sync-load.dry-run.jsonl"

/** What one pass over the input found. */
interface Scan {
  /** Records (valid or not) per resource, and images: the progress totals. */
  readonly totals: Map<string, number>
  /** Valid records to send per resource. */
  readonly validTotals: Map<Resource, number>
  /** External ids of the categories to send (for the count per level). */
  readonly categories: Array<string>
  bundles: number
  /** Per source: the resources it holds and the byte range each occupies (JSONL). */
  readonly ranges: Map<string, Map<Resource, { start: number; end: number; line: number }>>
  readonly parents: Map<string, string | undefined>
  readonly media: Map<string, MediaInput>
  readonly invalid: Array<Invalid>
  readonly declared: Map<string, Set<string>>
}

/** Errors a request may end with that stop the load (the rest fail only the records sent). */
const isFatal = (error: ClientError): boolean =>
  error._tag === "NetworkError" ||
  error._tag === "UnexpectedResponse" ||
  (error._tag === "CatalogSyncError" && (error.status === 401 || error.status === 429 || error.status >= 500))

const fatal = (what: string) => (error: ClientError) =>
  new LoadError({
    message: `${what}: ${error.message}${"code" in error ? ` (${error.code})` : ""}; run the same command again to continue`,
    cause: error
  })

const lineId = (position: { readonly file: string; readonly line: number }) =>
  State.failureId({ ...position, resource: undefined, external_id: undefined })
const recordId = (record: InputRecord) => {
  const externalId = typeof record.body.external_id === "string" ? record.body.external_id : undefined
  return State.failureId({ ...record.position, resource: record.resource, external_id: externalId })
}
const mediaId = (media: MediaInput) =>
  State.failureId({ ...media.position, resource: "media", external_id: media.externalId })

/** Runs a load (see LoadOptions); needs a FileSystem (NodeFileSystem.layer in Node). */
export const load = (
  options: LoadOptions
): Effect.Effect<LoadSummary, LoadError | InputError | PlatformError, FileSystem.FileSystem> =>
  Effect.scoped(
    Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      const dryRun = options.dryRun === true
      const maxPending = options.maxPending ?? 10
      if (!Number.isInteger(maxPending) || maxPending < 1 || maxPending > 20)
        return yield* new LoadError({ message: "maxPending must be 1 to 20 (the connection's pending job limit)" })
      if (options.apiKeys.length === 0) return yield* new LoadError({ message: "at least one API key is needed" })
      if (dryRun && options.retryFailed === true)
        return yield* new LoadError({ message: "--dry-run and --retry-failed do not go together" })
      const statePath = dryRun ? undefined : (options.statePath ?? defaultStatePath)
      const reportPath = options.reportPath ?? (dryRun ? defaultDryRunReportPath : defaultReportPath)
      const input = yield* sources(options.inputs)
      if (input.length === 0) return yield* new LoadError({ message: "no input files" })

      const { clients, connectionId, rateLimited } = yield* connect(options)
      const target = { url: options.baseUrl, connection_id: connectionId }
      let turn = 0
      const next = () => clients[turn++ % clients.length]!
      const tracker = yield* Jobs.make(next, { pollInterval: options.pollInterval ?? "100 millis" })

      const state = statePath === undefined ? State.empty() : ((yield* State.read(statePath)) ?? State.empty())
      // A dry run keeps its state in memory only.
      const log =
        statePath === undefined
          ? (...events: ReadonlyArray<State.Event>) =>
              Effect.sync(() => events.forEach((event) => State.apply(state, event)))
          : State.writer(statePath, state)
      const progress = new Progress(started, dryRun)
      const report = (now: number) => Effect.sync(() => options.onProgress?.(progress.snapshot(now)))
      const summary = (round: number, alreadyFinished: boolean, deferredCount: number) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const failed = yield* writeReport(reportPath, state.failures.values())
          progress.setPhase("finished")
          yield* report(now)
          return {
            dryRun,
            round,
            alreadyFinished,
            resources: progress.snapshot(now).resources,
            failed,
            deferred: deferredCount,
            rateLimited: rateLimited(),
            reportPath,
            statePath,
            elapsedMs: now - started
          } satisfies LoadSummary
        })

      if (state.target !== undefined && JSON.stringify(state.target) !== JSON.stringify(target)) {
        return yield* new LoadError({
          message: `${statePath} is the state of a load into ${state.target.url}, connection ${state.target.connection_id}; give this load its own --state file`
        })
      }

      // Which run this is: a new load, a resumed one, or a round of retries.
      let round = 0
      let selected: ReadonlySet<string> | undefined
      if (options.retryFailed === true) {
        if (!state.finished.has(0))
          return yield* new LoadError({
            message: `no finished load in ${statePath}: --retry-failed re-sends the failures of a finished load`
          })
        const open = Array.from(state.rounds.keys()).filter((r) => !state.finished.has(r))
        round = open[0] ?? Math.max(0, ...state.rounds.keys()) + 1
        if (open.length === 0) {
          if (state.failures.size === 0) return yield* summary(round - 1, true, 0)
          yield* log({ e: "retry", round, ids: Array.from(state.failures.keys()) })
        }
        selected = new Set(state.rounds.get(round))
      } else if (state.finished.has(0)) {
        return yield* summary(0, true, 0)
      } else if (!dryRun) {
        const now = State.fingerprint(input.map((s) => s.path))
        if (state.inputs === undefined) yield* log({ e: "start", v: 1, target, inputs: now })
        else if (JSON.stringify(state.inputs) !== JSON.stringify(now)) {
          return yield* new LoadError({
            message: `the input changed since this load started (${statePath}); finish it with the same input, or remove the state file to start over`
          })
        }
      }

      const isSelected = (ids: ReadonlyArray<string>) => selected === undefined || ids.some((id) => selected.has(id))
      yield* Effect.repeat(
        Effect.flatMap(Clock.currentTimeMillis, report),
        Schedule.spaced(options.progressInterval ?? "1 second")
      ).pipe(Effect.delay(options.progressInterval ?? "1 second"), Effect.forkScoped)

      const scan = yield* scanInput(input, options, dryRun, isSelected)
      for (const [resource, total] of scan.totals) progress.setTotal(resource, total)
      for (const done of state.done.values()) {
        if (done.round !== round) continue
        for (const [resource, counts] of Object.entries(done.counts)) progress.restore(resource, counts)
      }
      for (const invalid of scan.invalid) {
        const failure = invalidFailure(invalid)
        const id = State.failureId(failure)
        const known = state.failures.get(id)
        if (known?.message !== failure.message || known.line !== failure.line) yield* log({ e: "fail", id, ...failure })
        progress.add(invalid.resource ?? "invalid", { failed: 1 }, yield* Clock.currentTimeMillis)
      }

      const salt = dryRun ? `dry-${randomUUID()}` : round === 0 ? "" : `retry-${round}`
      let deferredCount = 0
      const settled: Settled = (key, counts, failures, applied) =>
        Effect.gen(function* () {
          const oks =
            round === 0
              ? []
              : applied.flatMap((ids) =>
                  ids.filter((id) => state.failures.has(id)).map((id) => ({ e: "ok" as const, id }))
                )
          yield* log(...failures.map(([id, failure]) => ({ e: "fail" as const, id, ...failure })), ...oks, {
            e: "done",
            key,
            round,
            counts
          })
          const now = yield* Clock.currentTimeMillis
          for (const [resource, n] of Object.entries(counts)) progress.add(resource, n, now)
        })

      /**
       * Waits for a job's end. A job that could not finish (failed as a whole, paused, records left pending)
       * is retried (with a key a rerun repeats), up to maxJobRetries; per-record failures come from the
       * report whether the job ended completed or failed.
       */
      const settleJob = (jobId: string, retryable: (job: Jobs.JobRecord) => boolean = () => true) =>
        Effect.gen(function* () {
          for (let retries = 0; ; retries++) {
            const end = yield* tracker.await(jobId)
            const unfinished = !Jobs.settledEveryRecord(end.job)
            if (!unfinished && end.job.counts.failed === 0) return { end, unfinished }
            const detail =
              end.report === undefined ? yield* next().jobs.get(jobId) : { job: end.job, report: end.report }
            if (!unfinished || !retryable(detail.job) || retries >= (options.maxJobRetries ?? 5))
              return { end: detail, unfinished }
            yield* Effect.sleep(Duration.millis(500 * 2 ** retries))
            yield* next()
              .jobs.retry(jobId, { idempotencyKey: `csr-${jobId}-${detail.job.run}` })
              .pipe(
                Effect.catchIf(
                  (e) => e._tag === "CatalogSyncError" && e.code === "job_not_retryable",
                  () => Effect.void
                )
              )
          }
        })

      const submitImport = (batch: Batch) =>
        tracker.submitting(
          next().imports.submit(
            { records: batch.records.map((r) => ({ resource: r.resource, body: r.body })) },
            { idempotencyKey: batch.key }
          )
        )

      const refused = (batch: Batch, error: ClientError) =>
        settled(
          batch.key,
          tally(batch.records.map((record) => [record.resource, "failed"])),
          batch.records.map((record) => {
            const failure = recordFailure(record, {
              code: "code" in error ? error.code : error._tag,
              message: error.message,
              ...("details" in error && error.details !== undefined ? { details: error.details } : {})
            })
            return [recordId(record), failure] as const
          }),
          []
        )

      const importBatch = (batch: Batch): Effect.Effect<void, LoadError> =>
        Effect.gen(function* () {
          if (state.done.has(batch.key)) return
          let jobId = state.sent.get(batch.key)
          if (jobId === undefined) {
            const answer = yield* Effect.either(submitImport(batch))
            if (answer._tag === "Left") {
              if (isFatal(answer.left))
                return yield* Effect.fail(fatal(`sending ${batch.tier} batch ${batch.seq + 1}`)(answer.left))
              return yield* refused(batch, answer.left)
            }
            if (!("job" in answer.right))
              return yield* new LoadError({ message: "the server answered an import with a report instead of a job" })
            jobId = answer.right.job.id
            yield* log({ e: "sent", key: batch.key, job: jobId })
          }
          const outcome = yield* Effect.either(settleJob(jobId))
          if (outcome._tag === "Left") {
            // The job is gone (a server whose data was reset): send the batch again.
            if (outcome.left._tag === "CatalogSyncError" && outcome.left.code === "not_found") {
              state.sent.delete(batch.key)
              const answer = yield* Effect.either(submitImport(batch))
              if (answer._tag === "Left")
                return yield* Effect.fail(fatal(`sending ${batch.tier} batch ${batch.seq + 1}`)(answer.left))
              // The server still replays the key with the job it lost: there is nothing to wait for.
              if (!("job" in answer.right) || answer.right.job.id === jobId) {
                return yield* new LoadError({
                  message: `the job ${jobId} of ${batch.tier} batch ${batch.seq + 1} is gone and its Idempotency-Key still names it`
                })
              }
              yield* log({ e: "sent", key: batch.key, job: answer.right.job.id })
              return yield* importBatch(batch)
            }
            return yield* Effect.fail(
              fatal(`waiting for the job of ${batch.tier} batch ${batch.seq + 1}`)(outcome.left)
            )
          }
          const mixed = batch.records.some((r) => r.resource !== batch.records[0]!.resource)
          // Per-resource counts of a batch of several resources come from its report.
          const end =
            mixed && outcome.right.end.report === undefined
              ? yield* next()
                  .jobs.get(jobId)
                  .pipe(Effect.mapError(fatal(`reading job ${jobId}`)))
              : outcome.right.end
          const counts = end.job.counts
          const records = end.report?.records ?? []
          const failures: Array<readonly [string, State.Failure]> = []
          const applied: Array<ReadonlyArray<string>> = []
          for (const [index, record] of batch.records.entries()) {
            const result = records.find((r) => r.index === index)
            const ids = [recordId(record), lineId(record.position)]
            if (result === undefined) {
              if (end.report === undefined) applied.push(ids)
              continue
            }
            if (result.status === "applied") applied.push(ids)
            else if (result.status === "failed" && result.error !== null)
              failures.push([ids[0]!, recordFailure(record, result.error)])
            else {
              const why = end.job.failure ?? {
                code: "job_not_finished",
                message: `the job ended ${end.job.state} before this record was processed`
              }
              failures.push([ids[0]!, recordFailure(record, why)])
            }
          }
          const perResource = mixed
            ? tally(
                batch.records.map((record, index) => {
                  const result = records.find((r) => r.index === index)
                  return [record.resource, result?.status === "applied" ? (result.outcome ?? "unchanged") : "failed"]
                })
              )
            : {
                [batch.records[0]!.resource]: {
                  created: counts.created,
                  updated: counts.updated,
                  unchanged: counts.unchanged,
                  failed: failures.length
                }
              }
          yield* settled(batch.key, perResource, failures, applied)
        })

      const declared: Declared = scan.declared
      const dryRunBatch = (batch: Batch): Effect.Effect<void, LoadError> =>
        Effect.gen(function* () {
          const answer = yield* Effect.either(
            next().imports.submit(
              { dry_run: true, records: batch.records.map((r) => ({ resource: r.resource, body: r.body })) },
              { idempotencyKey: batch.key }
            )
          )
          if (answer._tag === "Left") {
            if (isFatal(answer.left))
              return yield* Effect.fail(fatal(`dry run of ${batch.tier} batch ${batch.seq + 1}`)(answer.left))
            return yield* refused(batch, answer.left)
          }
          if (!("report" in answer.right))
            return yield* new LoadError({ message: "the server answered a dry run with a job" })
          const result = answer.right.report
          const failures: Array<readonly [string, State.Failure]> = []
          const outcomes: Array<readonly [string, Outcome]> = []
          for (const entry of result.records) {
            const record = batch.records[entry.index]
            if (record === undefined) continue
            if (entry.status !== "failed" || entry.error === null)
              outcomes.push([record.resource, entry.outcome ?? "unchanged"])
            else if (deferred(record.body, entry.error, declared, recordPath)) {
              deferredCount++
              outcomes.push([record.resource, "created"])
            } else {
              failures.push([recordId(record), recordFailure(record, entry.error)])
              outcomes.push([record.resource, "failed"])
            }
          }
          yield* settled(batch.key, tally(outcomes), failures, [])
        })

      // Images first: records reference them only once their media jobs completed.
      progress.setPhase("media")
      const media = Array.from(scan.media.values()).sort((a, b) =>
        a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0
      )
      yield* Effect.forEach(
        media,
        (item) =>
          dryRun
            ? checkImage(item, settled)
            : uploadImage(item, salt, { state, log, next, tracker, settleJob, settled }),
        { concurrency: maxPending, discard: true }
      )

      progress.setPhase("loading")
      const levels = categoryLevels(scan.parents)
      const depth = Math.max(0, ...levels.values()) + 1
      const levelOf = (record: InputRecord) =>
        record.resource === "categories"
          ? (levels.get(String(record.body.external_id)) ?? 0)
          : record.resource === "products" && isBundle(record.body)
            ? 1
            : 0
      const present = new Set(Array.from(scan.validTotals.keys()))
      const tiers = plan(present, depth, scan.bundles > 0)
      const tierIndex = (record: InputRecord) =>
        tiers.findIndex((t) => t.resource === record.resource && t.level === levelOf(record))
      const tierTotal = (tier: Tier) =>
        tier.resource === "categories"
          ? scan.categories.filter((id) => (levels.get(id) ?? 0) === tier.level).length
          : tier.resource === "products"
            ? tier.level === 1
              ? scan.bundles
              : (scan.validTotals.get("products") ?? 0) - scan.bundles
            : (scan.validTotals.get(tier.resource) ?? 0)
      const batchSize = options.batchSize ?? maxRecords
      const send = dryRun ? dryRunBatch : importBatch
      for (const group of groupTiers(tiers, tierTotal, batchSize)) {
        const inGroup = (record: InputRecord) =>
          group.some((t) => t.resource === record.resource && t.level === levelOf(record)) &&
          isSelected([recordId(record), lineId(record.position)])
        const records = tierRecords(input, scan, new Set(group.map((t) => t.resource)), options).pipe(
          Stream.filter(inGroup)
        )
        const name = group.map(tierName).join("+")
        if (group.length === 1) {
          yield* batches(records, name, { size: batchSize, salt }).pipe(
            Stream.mapEffect(send, { concurrency: maxPending, unordered: true }),
            Stream.runDrain
          )
          continue
        }
        // Small tiers together: at most one batch, in tier order, so that a split by size keeps parents first.
        const collected = Array.from(yield* Stream.runCollect(records))
        const sorted = collected
          .map((record) => [tierIndex(record), record] as const)
          .sort((a, b) => a[0] - b[0])
          .map(([, record]) => record)
        yield* batches(Stream.fromIterable(sorted), name, { size: batchSize, salt }).pipe(
          Stream.mapEffect(send),
          Stream.runDrain
        )
      }

      yield* log({ e: "finished", round })
      return yield* summary(round, false, deferredCount)
    })
  )

/** One client per key, paced per key and together for the company; checks that the keys share a connection. */
const connect = (options: LoadOptions) =>
  Effect.gen(function* () {
    const company = yield* Pacer.make({ limitFactor: 5 })
    // Pacing should leave the limit unmet: every 429 (retried by the client) is counted for the summary.
    let refused = 0
    const answered = (status: number) => Effect.sync(() => void (status === 429 && refused++))
    const clients: Array<Client> = []
    const principals: Array<{ connection_id: string; scopes: ReadonlyArray<string> }> = []
    for (const apiKey of options.apiKeys) {
      const pacer = { ...Pacer.both(yield* Pacer.make(), company), answered }
      const client = yield* makeClient({
        baseUrl: options.baseUrl,
        apiKey,
        appName: options.appName ?? "catalog-sync-load",
        appVersion: options.appVersion ?? "0.1.0",
        pacer,
        retry: { maxAttempts: 8 }
      }).pipe(Effect.provide(FetchHttpClient.layer))
      principals.push(
        yield* client.me.pipe(
          Effect.map((answer) => answer.principal),
          Effect.mapError(
            (error) =>
              new LoadError({ message: `the key ${clients.length + 1} was refused: ${error.message}`, cause: error })
          )
        )
      )
      clients.push(client)
    }
    const first = principals[0]!
    const scopes = (p: { scopes: ReadonlyArray<string> }) => [...p.scopes].sort().join(",")
    if (principals.some((p) => p.connection_id !== first.connection_id)) {
      return yield* new LoadError({
        message:
          "the keys belong to different connections: give keys of one connection (jobs and idempotency keys are per connection)"
      })
    }
    if (principals.some((p) => scopes(p) !== scopes(first))) {
      return yield* new LoadError({
        message:
          "the keys have different scopes: give keys with the same scopes, so that any of them can resume another's batches"
      })
    }
    return { clients, connectionId: first.connection_id, rateLimited: () => refused }
  })

/** The first pass: totals per resource, where each resource lies in each file, category parents, images. */
const scanInput = (
  input: ReadonlyArray<Source>,
  options: LoadOptions,
  dryRun: boolean,
  isSelected: (ids: ReadonlyArray<string>) => boolean
) =>
  Effect.gen(function* () {
    const scan: Scan = {
      totals: new Map(),
      validTotals: new Map(),
      categories: [],
      bundles: 0,
      ranges: new Map(),
      parents: new Map(),
      media: new Map(),
      invalid: [],
      declared: new Map()
    }
    const count = (resource: string) => scan.totals.set(resource, (scan.totals.get(resource) ?? 0) + 1)
    const declare = (resource: string, externalId: unknown) => {
      if (dryRun && typeof externalId === "string") {
        let set = scan.declared.get(resource)
        if (set === undefined) scan.declared.set(resource, (set = new Set()))
        set.add(externalId)
      }
    }
    const addMedia = (media: MediaInput) => {
      declare("media", media.externalId)
      if (scan.media.has(media.externalId) || !isSelected([mediaId(media)])) return
      scan.media.set(media.externalId, media)
    }
    if (options.images?.catalog !== undefined)
      yield* Stream.runForEach(imageFolder(options.images.catalog, "catalog"), (m) => Effect.sync(() => addMedia(m)))
    if (options.images?.option !== undefined)
      yield* Stream.runForEach(imageFolder(options.images.option, "option"), (m) => Effect.sync(() => addMedia(m)))
    for (const source of input) {
      const ranges = new Map<Resource, { start: number; end: number; line: number }>()
      scan.ranges.set(source.path, ranges)
      yield* Stream.runForEach(
        read(source, {
          ...(options.images === undefined ? {} : { images: options.images }),
          ...(options.csvColumns === undefined ? {} : { csvColumns: options.csvColumns })
        }),
        (item: Located) =>
          Effect.sync(() => {
            if (item._tag === "Media") return addMedia(item.media)
            if (item._tag === "Invalid") {
              if (!isSelected([State.failureId(invalidFailure(item.invalid)), lineId(item.invalid.position)])) return
              scan.invalid.push(item.invalid)
              count(item.invalid.resource ?? "invalid")
              return
            }
            const { record } = item
            declare(record.resource, record.body.external_id)
            const range = ranges.get(record.resource)
            if (range === undefined) ranges.set(record.resource, { start: item.start, end: item.end, line: item.line })
            else range.end = item.end
            if (record.resource === "categories" && typeof record.body.external_id === "string") {
              scan.parents.set(record.body.external_id, referencedExternalId(record.body.parent_id))
            }
            for (const media of item.images) addMedia(media)
            if (!isSelected([recordId(record), lineId(record.position)])) return
            if (record.resource === "products" && isBundle(record.body)) scan.bundles++
            if (record.resource === "categories") scan.categories.push(String(record.body.external_id))
            count(record.resource)
            scan.validTotals.set(record.resource, (scan.validTotals.get(record.resource) ?? 0) + 1)
          })
      )
    }
    if (scan.media.size > 0) scan.totals.set("media", scan.media.size)
    // Announce resources in sending order (media first), so that progress lists them that way.
    const ordered = new Map<string, number>()
    for (const name of ["media", ...resources, ...scan.totals.keys()])
      if (scan.totals.has(name) && !ordered.has(name)) ordered.set(name, scan.totals.get(name)!)
    return { ...scan, totals: ordered }
  })

/** The records of some resources: only the sources that hold them, only the byte range where they lie. */
const tierRecords = (input: ReadonlyArray<Source>, scan: Scan, wanted: ReadonlySet<Resource>, options: LoadOptions) =>
  Stream.fromIterable(input).pipe(
    Stream.flatMap(
      (source) => {
        const held = Array.from(scan.ranges.get(source.path) ?? [], ([resource, range]) =>
          wanted.has(resource) ? range : undefined
        ).filter((r) => r !== undefined)
        if (held.length === 0) return Stream.empty
        const range = {
          start: Math.min(...held.map((r) => r.start)),
          end: Math.max(...held.map((r) => r.end)),
          line: held.reduce((a, b) => (b.start < a.start ? b : a)).line
        }
        return read(source, {
          ...(options.images === undefined ? {} : { images: options.images }),
          ...(options.csvColumns === undefined ? {} : { csvColumns: options.csvColumns }),
          // CSV files need their header: they are read whole (one resource per file anyway).
          ...(source.format === "jsonl" ? { range } : {})
        })
      },
      { concurrency: 1 }
    ),
    Stream.filterMap((item) => (item._tag === "Record" ? Option.some(item.record) : Option.none())),
    Stream.mapError((error) => new LoadError({ message: `reading the input again: ${error.message}`, cause: error }))
  )

type Outcome = "created" | "updated" | "unchanged" | "failed"

/** Counts per resource of records' outcomes. */
const tally = (outcomes: ReadonlyArray<readonly [string, Outcome]>): Record<string, State.Counts> => {
  const out: Record<string, { created: number; updated: number; unchanged: number; failed: number }> = {}
  for (const [resource, outcome] of outcomes)
    (out[resource] ??= { created: 0, updated: 0, unchanged: 0, failed: 0 })[outcome]++
  return out
}

type Settled = (
  key: string,
  counts: Readonly<Record<string, State.Counts>>,
  failures: ReadonlyArray<readonly [string, State.Failure]>,
  applied: ReadonlyArray<ReadonlyArray<string>>
) => Effect.Effect<void>

const magic: ReadonlyArray<readonly [string, (b: Buffer) => boolean]> = [
  ["jpeg", (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ["png", (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ["webp", (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP"]
]

/** Dry run: an image is checked locally (exists, at most 10 MB, JPEG/PNG/WebP); nothing is uploaded. */
const checkImage = (media: MediaInput, settled: Settled) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const key = `check-${media.externalId}`
    const problem = yield* Effect.gen(function* () {
      const info = yield* fs.stat(media.file)
      if (Number(info.size) > 10 * 1024 * 1024) return { code: "payload_too_large", message: "larger than 10 MB" }
      const head = Buffer.from(
        yield* Stream.runCollect(fs.stream(media.file, { bytesToRead: FileSystem.Size(12) })).pipe(
          Effect.map((chunks) => Buffer.concat(Array.from(chunks)))
        )
      )
      if (!magic.some(([, test]) => test(head)))
        return { code: "unsupported_image_format", message: "not a JPEG, PNG or WebP image" }
      return undefined
    }).pipe(Effect.catchAll(() => Effect.succeed({ code: "file_not_found", message: "cannot read the file" })))
    if (problem === undefined) return yield* settled(key, tally([["media", "created"]]), [], [])
    return yield* settled(key, tally([["media", "failed"]]), [[mediaId(media), mediaFailure(media, problem)]], [])
  }).pipe(Effect.orDie)

/** The Idempotency-Key of an image upload: its fields and the file's size and time (a changed file is a new upload). */
const mediaKey = (media: MediaInput, salt: string) => {
  let stamp = "missing"
  try {
    const info = statSync(media.file)
    stamp = `${info.size}:${Math.round(info.mtimeMs)}`
  } catch {
    // The upload will report the missing file.
  }
  return `csm-${createHash("sha256").update(`${salt}\n${media.externalId}\n${media.name}\n${media.purpose}\n${stamp}`).digest("hex").slice(0, 48)}`
}

/** Media job failures that a retry may fix; an image refused while processing fails again. */
const retryableMedia: ReadonlySet<string> = new Set([
  "storage_unavailable",
  "internal_error",
  "processing_timeout",
  "storage_denied"
])

interface UploadContext {
  readonly state: State.State
  readonly log: (...events: ReadonlyArray<State.Event>) => Effect.Effect<void>
  readonly next: () => Client
  readonly tracker: Jobs.Tracker
  readonly settleJob: (
    jobId: string,
    retryable: (job: Jobs.JobRecord) => boolean
  ) => Effect.Effect<{ readonly end: Jobs.JobEnd; readonly unfinished: boolean }, ClientError>
  readonly settled: Settled
}

/** Uploads one image and waits for its media job. */
const uploadImage = (media: MediaInput, salt: string, context: UploadContext): Effect.Effect<void, LoadError> =>
  Effect.gen(function* () {
    const key = mediaKey(media, salt)
    if (context.state.done.has(key)) return
    const failed = (error: { code: string; message: string; details?: unknown }) =>
      context.settled(key, tally([["media", "failed"]]), [[mediaId(media), mediaFailure(media, error)]], [])
    let jobId = context.state.sent.get(key)
    if (jobId === undefined) {
      const file = yield* Effect.tryPromise(() => openAsBlob(media.file)).pipe(Effect.either)
      if (file._tag === "Left") return yield* failed({ code: "file_not_found", message: "cannot read the file" })
      const answer = yield* Effect.either(
        context.tracker.submitting(
          context
            .next()
            .media.upload({ external_id: media.externalId, name: media.name, purpose: media.purpose }, file.right, {
              idempotencyKey: key
            })
        )
      )
      if (answer._tag === "Left") {
        if (isFatal(answer.left)) return yield* Effect.fail(fatal(`uploading ${media.file}`)(answer.left))
        const error = answer.left
        return yield* failed({
          code: "code" in error ? error.code : error._tag,
          message: error.message,
          ...("details" in error && error.details !== undefined ? { details: error.details } : {})
        })
      }
      jobId = answer.right.job.id
      yield* context.log({ e: "sent", key, job: jobId })
    }
    const outcome = yield* Effect.either(context.settleJob(jobId, (job) => retryableMedia.has(job.failure?.code ?? "")))
    if (outcome._tag === "Left")
      return yield* Effect.fail(fatal(`waiting for the media job of ${media.file}`)(outcome.left))
    const job = outcome.right.end.job
    if (job.state === "completed")
      return yield* context.settled(key, tally([["media", "created"]]), [], [[mediaId(media)]])
    return yield* failed(job.failure ?? { code: "job_not_finished", message: `the media job ended ${job.state}` })
  })

export { InputError }
