import { Clock, Context, Duration, Effect, Option, Schema } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { Unauthenticated } from "../Auth/AuthErrors.js"
import { accessStopped, principalOf } from "../Auth/Authenticate.js"
import { CurrentPrincipal, type Principal } from "../Auth/Principal.js"
import { RecordNotFound, ScopeDenied, ValidationFailed } from "../Shared/Errors.js"
import { Mappings, type MappingScope } from "../Catalog/Mappings.js"
import { ChangeLog, type ChangeOperation } from "../Changes/ChangeLog.js"
import {
  type JobCounts,
  type JobFailure,
  maxPendingPerConnection,
  queued,
  render as renderJob,
  retryableStates,
  type StoredJob
} from "../Jobs/Job.js"
import { currentTraceParent } from "../Jobs/JobTrace.js"
import { JobLimitReached, JobNotRetryable } from "../Jobs/JobErrors.js"
import type { JobKindHandler } from "../Jobs/JobKinds.js"
import { jobAccess } from "../Jobs/JobAccess.js"
import { JobSignal } from "../Jobs/JobSignal.js"
import { JobStore } from "../Jobs/JobStore.js"
import { type CompanyId, type ConnectionId, Ids, type RecordId } from "../Shared/Ids.js"
import { plainIssues } from "../Shared/PlainIssues.js"
import type { Scope } from "../Shared/Scope.js"
import { Transactor } from "../Shared/Transactor.js"
import { command, runDirect } from "../Writes/WriteCommand.js"
import { ImageProcessor } from "./ImageProcessor.js"
import {
  contentKey,
  maxLongEdge,
  maxUploadBytes,
  maxPixels,
  maxStagedBytesPerConnection,
  MediaFields,
  type MediaRecord,
  isRemoteUrl,
  remoteUrlField,
  render,
  sniffFormat,
  type StoredMedia
} from "./Media.js"
import {
  ImageRejected,
  MediaVersionConflict,
  RemoteUrlNotAccepted,
  StagingLimitReached,
  UnsupportedImageFormat,
  UploadTooLarge
} from "./MediaErrors.js"
import { MediaRepository } from "./MediaRepository.js"
import { MediaStaging, MediaStorage, type StagedFile } from "./MediaStorage.js"

export interface MediaPage {
  readonly records: ReadonlyArray<MediaRecord>
  readonly next_cursor: string | null
  readonly has_more: boolean
}

/** A media job's counts: its one image. */
export const mediaCounts = (job: StoredJob): JobCounts => ({
  total: 1,
  created: job.state === "completed" ? 1 : 0,
  updated: 0,
  unchanged: 0,
  failed: job.state === "failed" ? 1 : 0,
  pending: job.state === "queued" || job.state === "running" || job.state === "paused" ? 1 : 0
})

const remoteUrlMessage = "remote URLs are not imported; send the image itself as the multipart file part named file"

/** The refusal of a form whose fields carry a URL in place of the image, if they do (spec 2.13). */
export const remoteUrlRefusal = (fields: Readonly<Record<string, string>>): RemoteUrlNotAccepted | undefined => {
  const path = remoteUrlField(fields)
  return path === undefined ? undefined : new RemoteUrlNotAccepted({ path, message: remoteUrlMessage })
}

/** Refuses a form whose fields carry a URL in place of the image (spec 2.13: remote URLs are not imported). */
export const refuseRemoteUrls = (fields: Readonly<Record<string, string>>) => {
  const refusal = remoteUrlRefusal(fields)
  return refusal === undefined ? Effect.void : Effect.fail(refusal)
}

/**
 * How long processing one image may take. A stalled decoder would otherwise hold the company's media
 * queue (one image at a time) for good, its heartbeat keeping the job's lease alive.
 */
export class ProcessingTimeout extends Context.Reference<ProcessingTimeout>()(
  "@catalog-sync/core/MediaService/ProcessingTimeout",
  {
    defaultValue: (): Duration.Duration => Duration.minutes(2)
  }
) {}

/** Seconds a client waits when its connection's staged images reach 100 MB. */
export const stagingRetryAfterSeconds = 10

const pendingLimit = new JobLimitReached({
  message: `this connection has ${maxPendingPerConnection} pending (queued or running) jobs; retry when one has finished`,
  limit: maxPendingPerConnection,
  retry_after: 5
})

/**
 * How long a failed media job keeps its image staged, so that a retry (with an active key, once the
 * processor or the storage works again) needs no new upload. Then the image is removed and the item
 * fails; an upload of the same image under its external_id restarts the job.
 */
export const failedImageKeptMillis = 24 * 60 * 60 * 1000

const stagingFull = new StagingLimitReached({
  message: `this connection has ${maxStagedBytesPerConnection} bytes of images waiting to be processed; retry when some are done`,
  retry_after: stagingRetryAfterSeconds
})

/** A refusal of staging, carried out of the chunks it stops. */
class OverLimit {
  constructor(readonly refusal: UploadTooLarge | StagingLimitReached) {}
}

/**
 * The chunks, stopped by an `OverLimit` at the first one past the file limit or `allowance`. Not an async
 * generator: its `return` must reach the chunks' own at once, also while a read is waiting on them (a
 * generator queues it behind that read, so an interrupted upload would wait for the client's next bytes).
 */
const withinLimits = (chunks: AsyncIterable<Uint8Array>, allowance: number): AsyncIterable<Uint8Array> => ({
  [Symbol.asyncIterator]: () => {
    const source = chunks[Symbol.asyncIterator]()
    let total = 0
    return {
      next: () =>
        source.next().then((next) => {
          if (next.done === true) return next
          total += next.value.byteLength
          if (total > maxUploadBytes) {
            throw new OverLimit(
              new UploadTooLarge({ message: `images are limited to ${maxUploadBytes} bytes`, limit: maxUploadBytes })
            )
          }
          if (total > allowance) throw new OverLimit(stagingFull)
          return next
        }),
      return: () => source.return?.() ?? Promise.resolve({ done: true, value: undefined })
    }
  }
})

const requireScope = (principal: Principal, scope: Scope) =>
  principal.scopes.has(scope)
    ? Effect.void
    : Effect.fail(new ScopeDenied({ message: `this operation needs the scope ${scope}`, required: [scope] }))

/**
 * The media pipeline (spec 2.13): uploads are staged and checked (format sniffed from the bytes, header
 * dimensions), recorded with a queued `media` job and an external_id mapping; a worker processes one
 * image of a company at a time, in upload order, into a content-addressed WebP file of the company's
 * folder. Versions are immutable.
 */
export class MediaService extends Effect.Service<MediaService>()("@catalog-sync/core/MediaService", {
  effect: Effect.gen(function* () {
    const repository = yield* MediaRepository
    const staging = yield* MediaStaging
    const storage = yield* MediaStorage
    const images = yield* ImageProcessor
    const mappings = yield* Mappings
    const changes = yield* ChangeLog
    const jobs = yield* JobStore
    const transactor = yield* Transactor
    const accounts = yield* Accounts
    const ids = yield* Ids
    const processingTimeout = yield* ProcessingTimeout
    const signal = yield* JobSignal

    const now = Effect.map(Clock.currentTimeMillis, (millis) => ({ millis, at: new Date(millis).toISOString() }))
    const scopeOf = (companyId: CompanyId, connectionId: ConnectionId): MappingScope => ({
      companyId,
      connectionId,
      resource: "media"
    })
    const discard = (key: string) => Effect.ignore(staging.remove(key))

    const logChange = (media: StoredMedia, operation: ChangeOperation, at: string) =>
      changes.append({
        companyId: media.companyId,
        resource: "media",
        recordId: media.id,
        revision: media.revision,
        operation,
        originConnectionId: media.connectionId,
        at,
        parts: ["media"]
      })

    /** media:write (POST /media) or media:read, checked before the upload is read. */
    const authorize = (scope: "media:read" | "media:write") =>
      Effect.flatMap(CurrentPrincipal, (principal) => requireScope(principal, scope))

    /** Bytes the caller's connection may still stage (100 MB minus its uploads not processed yet). */
    const stagingAllowance = Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      return Math.max(
        0,
        maxStagedBytesPerConnection - (yield* repository.stagedBytes(principal.company.id, principal.connectionId))
      )
    })

    /**
     * Stages an upload's file from its chunks as they arrive (a Node Readable or a web ReadableStream is
     * one; an Effect stream becomes one with `Stream.toAsyncIterable`), refusing it past the file limit
     * (10 MB) or past what the caller's connection may still stage (100 MB of images waiting to be
     * processed): nothing of a refused upload stays staged. `sourceFailed` maps what the chunks throw.
     */
    const stage = <E>(chunks: AsyncIterable<Uint8Array>, sourceFailed: (thrown: unknown) => E) =>
      Effect.gen(function* () {
        const allowance = yield* stagingAllowance
        return yield* staging.write(withinLimits(chunks, allowance), (thrown) =>
          thrown instanceof OverLimit ? thrown.refusal : sourceFailed(thrown)
        )
      })

    const decodeFields = (fields: Readonly<Record<string, string>>) =>
      Schema.decodeUnknown(MediaFields)(fields).pipe(
        Effect.mapError(
          (error) =>
            new ValidationFailed({
              message: "the form fields are not valid",
              issues: plainIssues(error)
            })
        )
      )

    const jobView = (job: StoredJob) => renderJob(job, mediaCounts(job))

    /**
     * The uploading key as it is now, checked where the upload commits: an upload streams for a while
     * (10 MB at 1 Mbit/s takes 84 s), and a key revoked, expired or stripped of media:write meanwhile
     * must not leave an image behind (401 or 403, its staged file removed). An embedding app's principal
     * comes from no key and has none to check.
     */
    const stillAuthorized = (principal: Principal) =>
      Effect.gen(function* () {
        if (principal.key === undefined) return
        const grant = Option.filter(
          yield* accounts.findKey(principal.keyId),
          (found) => found.company.id === principal.company.id && found.connection.id === principal.connectionId
        )
        if (Option.isNone(grant))
          return yield* new Unauthenticated({ reason: "key_revoked", message: "the API key no longer exists" })
        const stopped = accessStopped(grant.value, yield* Clock.currentTimeMillis)
        if (stopped !== undefined) return yield* new Unauthenticated(stopped)
        yield* requireScope(principalOf(grant.value, principal.key.scopes), "media:write")
      })

    /**
     * The same image uploaded again for a version whose job failed without its image (removed when the
     * job was not retried in time, or refused while processing): the new file becomes the version's
     * staged image and the job runs again, for this key, at the end of the queue.
     */
    const restage = (principal: Principal, version: StoredMedia, job: StoredJob, staged: StagedFile) =>
      Effect.gen(function* () {
        const { millis, at } = yield* now
        const traceParent = yield* currentTraceParent
        return yield* transactor.withTransaction(
          Effect.gen(function* () {
            const stagedBytes = yield* repository.stagedBytes(principal.company.id, principal.connectionId)
            if (stagedBytes + staged.bytes > maxStagedBytesPerConnection) return yield* stagingFull
            const requeue = yield* jobs.requeue(
              { companyId: principal.company.id, connectionId: principal.connectionId },
              job.id,
              {
                from: ["failed"],
                run: job.run + 1,
                keyId: principal.keyId,
                scopes: Array.from(principal.scopes),
                nowMillis: millis,
                at,
                maxPending: maxPendingPerConnection,
                traceParent
              }
            )
            switch (requeue._tag) {
              case "LimitReached":
                return yield* pendingLimit
              case "NotInState": {
                // Restarted meanwhile (a retry, or the same upload at once): its own image runs.
                yield* discard(staged.key)
                const current = yield* jobs.get(
                  { companyId: principal.company.id, connectionId: principal.connectionId },
                  job.id
                )
                return jobView(Option.getOrElse(current, () => job))
              }
              case "Requeued": {
                const queuedAgain: StoredMedia = {
                  ...version,
                  state: "queued",
                  stagedKey: staged.key,
                  failure: null,
                  revision: version.revision + 1,
                  updatedAt: at
                }
                yield* repository.update(queuedAgain)
                yield* logChange(queuedAgain, "updated", at)
                return jobView(requeue.job)
              }
            }
          })
        )
      })

    /**
     * POST /media, after the file was staged: checks the fields and the image, then either reuses the
     * version already under this external_id (same file, name and purpose: its job, no new work) or
     * records a new item with its queued job. The staged file is removed whenever it is not queued.
     */
    const applyUpload = (rawFields: Readonly<Record<string, string>>, staged: StagedFile) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        yield* stillAuthorized(principal)
        yield* refuseRemoteUrls(rawFields)
        const fields = yield* decodeFields(rawFields)
        const format = sniffFormat(staged.head)
        if (format === undefined) {
          if (isRemoteUrl(new TextDecoder().decode(staged.head))) {
            return yield* new RemoteUrlNotAccepted({ path: "$.file", message: remoteUrlMessage })
          }
          return yield* new UnsupportedImageFormat({ message: "the file is not a JPEG, PNG or WebP image" })
        }
        const scope = scopeOf(principal.company.id, principal.connectionId)
        const mapped = yield* mappings.find(scope, fields.external_id)
        const current = Option.isSome(mapped)
          ? yield* repository.get(principal.company.id, mapped.value)
          : Option.none<StoredMedia>()
        if (Option.isSome(current)) {
          const version = current.value
          const changed = [
            ...(version.sourceSha256 !== staged.sha256 ? (["file"] as const) : []),
            ...(version.name !== fields.name ? (["name"] as const) : []),
            ...(version.purpose !== fields.purpose ? (["purpose"] as const) : [])
          ]
          if (changed.length > 0) {
            return yield* new MediaVersionConflict({
              message: `media ${fields.external_id} already has a version and versions are immutable; upload the changed ${changed.join(", ")} under a new external_id`,
              media_id: version.id,
              changed
            })
          }
          const job = yield* jobs.get(
            { companyId: principal.company.id, connectionId: principal.connectionId },
            version.jobId
          )
          if (Option.isNone(job))
            return yield* Effect.dieMessage(`media ${version.id} without its job ${version.jobId}`)
          if (job.value.state === "failed" && version.stagedKey === null)
            return yield* restage(principal, version, job.value, staged)
          yield* discard(staged.key)
          return jobView(job.value)
        }
        // The header is nearly always within the head kept while staging; the whole file only otherwise.
        const info = yield* staged.bytes <= staged.head.byteLength
          ? images.inspect(staged.head)
          : images
              .inspect(staged.head)
              .pipe(Effect.orElse(() => Effect.flatMap(staging.read(staged.key), images.inspect)))
        if (info.width * info.height > maxPixels) {
          return yield* new ImageRejected({
            reason: "too_many_pixels",
            message: `the image has ${info.width}x${info.height} pixels; at most ${maxPixels} are accepted`
          })
        }
        const { millis, at } = yield* now
        const job: StoredJob = queued(principal, "media", yield* ids.next, { millis, at }, yield* currentTraceParent)
        const media: StoredMedia = {
          id: (yield* ids.next) as RecordId,
          companyId: principal.company.id,
          connectionId: principal.connectionId,
          externalId: fields.external_id,
          name: fields.name,
          purpose: fields.purpose,
          state: "queued",
          jobId: job.id,
          sourceSha256: staged.sha256,
          sourceBytes: staged.bytes,
          sourceFormat: format,
          stagedKey: staged.key,
          contentKey: contentKey(staged.sha256, fields.purpose),
          width: null,
          height: null,
          bytes: null,
          failure: null,
          revision: 1,
          createdAt: at,
          updatedAt: at
        }
        yield* transactor.withTransaction(
          Effect.gen(function* () {
            const stagedBytes = yield* repository.stagedBytes(principal.company.id, principal.connectionId)
            if (stagedBytes + staged.bytes > maxStagedBytesPerConnection) return yield* stagingFull
            // The mapping first: a concurrent upload of the same external_id fails here, before writes
            // that some stores (the in-memory ones) do not roll back.
            yield* mappings.insert({ ...scope, externalId: fields.external_id, recordId: media.id, createdAt: at })
            if (!(yield* jobs.insert(job, maxPendingPerConnection))) return yield* pendingLimit
            yield* repository.insert(media)
            yield* logChange(media, "created", at)
          })
        )
        return jobView(job)
      }).pipe(Effect.tapErrorCause(() => discard(staged.key)))

    const externalIds = (principal: Principal, records: ReadonlyArray<StoredMedia>) =>
      mappings.externalIdsOf(
        scopeOf(principal.company.id, principal.connectionId),
        records.map((m) => m.id)
      )

    /** GET /media: a cursor page in id order; `external_id` narrows to the caller's mapping. */
    const list = (params: {
      readonly limit: number
      readonly cursor?: string | undefined
      readonly external_id?: string | undefined
    }) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        yield* requireScope(principal, "media:read")
        let only: ReadonlyArray<RecordId> | undefined
        if (params.external_id !== undefined) {
          const mapped = yield* mappings.find(scopeOf(principal.company.id, principal.connectionId), params.external_id)
          only = Option.isSome(mapped) ? [mapped.value] : []
        }
        const rows =
          only !== undefined && only.length === 0
            ? []
            : yield* repository.list({
                companyId: principal.company.id,
                cursor: params.cursor,
                ids: only,
                limit: params.limit + 1
              })
        const page = rows.slice(0, params.limit)
        const external = yield* externalIds(principal, page)
        const hasMore = rows.length > params.limit
        return {
          records: page.map((m) => render(m, external.get(m.id) ?? null)),
          next_cursor: hasMore ? page[page.length - 1]!.id : null,
          has_more: hasMore
        } satisfies MediaPage
      })

    const find = (principal: Principal, id: string) =>
      Effect.flatMap(repository.get(principal.company.id, id as RecordId), (found) =>
        Option.match(found, {
          onNone: () =>
            Effect.fail(new RecordNotFound({ resource: "media", message: `no media ${id} in this company` })),
          onSome: Effect.succeed
        })
      )

    /** GET /media/{id}. */
    const get = (id: string) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        yield* requireScope(principal, "media:read")
        const media = yield* find(principal, id)
        const external = yield* externalIds(principal, [media])
        return render(media, external.get(media.id) ?? null)
      })

    /** GET /media/{id}/content: the processed file of a completed item, streamed. */
    const content = (id: string) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        yield* requireScope(principal, "media:read")
        const media = yield* find(principal, id)
        if (media.state !== "completed") {
          return yield* new RecordNotFound({
            resource: "media",
            message: `media ${id} is ${media.state}; its content exists once completed`
          })
        }
        const folder = principal.company.storage_slug
        return {
          media,
          stream: storage.read(folder, media.contentKey),
          etag: `"${media.contentKey.replace(/\.webp$/, "")}"`
        }
      })

    /**
     * Processes a claimed media job: reuses the company's processed file of the same source and purpose
     * when there is one, else processes the staged upload and writes it; then completes the item and
     * removes the staged file. A corrupt image fails item and job; a storage refusal pauses the job
     * (and so the company's image processing) until it is retried.
     */
    const process = (job: StoredJob, workerId: string) =>
      Effect.gen(function* () {
        const finish = (state: StoredJob["state"], failure: JobFailure | null) =>
          Effect.flatMap(now, ({ at }) => jobs.finish(job.id, workerId, { state, failure, at }))
        const found = yield* repository.byJob(job.id)
        if (Option.isNone(found))
          return yield* finish("failed", { code: "internal_error", message: "the job's media item is missing" })
        const media = found.value
        if (media.state === "completed") return yield* finish("completed", null)
        // Access stopped (spec 5.4): the job fails and its image stays queued and staged for a retry with an active key.
        const access = yield* Effect.provideService(jobAccess(job), Accounts, accounts)
        if (access._tag === "Stopped") return yield* finish("failed", access.failure)
        const folder = access.principal.company.storage_slug

        const fail = (failure: JobFailure) =>
          Effect.gen(function* () {
            const { at } = yield* now
            const failed: StoredMedia = {
              ...media,
              state: "failed",
              stagedKey: null,
              failure,
              revision: media.revision + 1,
              updatedAt: at
            }
            yield* transactor.withTransaction(
              Effect.gen(function* () {
                yield* repository.update(failed)
                yield* logChange(failed, "updated", at)
                yield* jobs.finish(job.id, workerId, { state: "failed", failure, at })
              })
            )
            if (media.stagedKey !== null) yield* discard(media.stagedKey)
          })

        const result = yield* Effect.either(
          Effect.gen(function* () {
            const reused = yield* repository.completedWithContent(media.companyId, media.contentKey)
            if (Option.isSome(reused) && (yield* storage.exists(folder, media.contentKey))) {
              return {
                width: reused.value.width ?? 0,
                height: reused.value.height ?? 0,
                bytes: reused.value.bytes ?? 0
              }
            }
            const gone = new ImageRejected({
              reason: "corrupt",
              message: "the staged upload is gone; upload the image again"
            })
            if (media.stagedKey === null) return yield* gone
            // A staged file that vanished (removed by hand, lost with a disk) cannot come back with a retry.
            const source = yield* staging.read(media.stagedKey).pipe(
              Effect.catchIf(
                (error) => error.reason === "not_found",
                () => Effect.fail(gone)
              )
            )
            const processed = yield* images
              .process(source, { maxLongEdge: maxLongEdge(media.purpose), maxPixels })
              .pipe(Effect.timeoutFail({ duration: processingTimeout, onTimeout: () => "TimedOut" as const }))
            yield* storage.put(folder, media.contentKey, processed.data)
            return { width: processed.width, height: processed.height, bytes: processed.data.byteLength }
          })
        )
        if (result._tag === "Left") {
          const error = result.left
          if (error === "TimedOut") {
            // The image is still staged: a retry may succeed on a less loaded machine.
            return yield* finish("failed", {
              code: "processing_timeout",
              message: `processing the image took longer than ${Duration.format(processingTimeout)}; retry the job, or upload a smaller image`
            })
          }
          if (error._tag === "PersistenceError") return yield* error
          if (error._tag === "ImageRejected") return yield* fail({ code: error.code, message: error.message })
          if (error.reason === "denied") {
            yield* Effect.logWarning(
              "media storage refused access; image processing of the company is paused",
              error
            ).pipe(Effect.annotateLogs({ job_id: job.id, company_id: job.companyId }))
            return yield* finish("paused", {
              code: error.code,
              message: `${error.message}; fix the storage, then retry the job`
            })
          }
          return yield* finish("failed", { code: "storage_unavailable", message: `${error.message}; retry the job` })
        }
        const { at } = yield* now
        const completed: StoredMedia = {
          ...media,
          state: "completed",
          stagedKey: null,
          width: result.right.width,
          height: result.right.height,
          bytes: result.right.bytes,
          failure: null,
          revision: media.revision + 1,
          updatedAt: at
        }
        yield* transactor.withTransaction(
          Effect.gen(function* () {
            yield* repository.update(completed)
            yield* logChange(completed, "updated", at)
            yield* jobs.finish(job.id, workerId, { state: "completed", failure: null, at })
          })
        )
        if (media.stagedKey !== null) yield* discard(media.stagedKey)
      })

    /**
     * Removes the staged images of media jobs that failed more than `keptMillis` ago and were not
     * retried, at most `limit` of them: each item fails (its job says why) and stops counting toward its
     * connection's staging limit. Each is re-read in its own transaction, so a job retried meanwhile
     * keeps its image. Returns how many were removed.
     */
    const releaseFailedUploads = (keptMillis: number = failedImageKeptMillis, limit = 200) =>
      Effect.gen(function* () {
        const { millis } = yield* now
        const cutoff = new Date(millis - keptMillis).toISOString()
        let released = 0
        const staged = yield* repository.staged
        for (let start = 0; start < staged.length && released < limit; start += 200) {
          const batch = staged.slice(start, start + 200)
          const failed = yield* jobs.listAll({
            ids: batch.map((media) => media.jobId),
            state: "failed",
            limit: batch.length
          })
          const expired = failed.filter((job) => job.finishedAt !== null && job.finishedAt < cutoff)
          for (const job of expired.slice(0, limit - released)) {
            const removed = yield* transactor.withTransaction(
              Effect.gen(function* () {
                const current = yield* jobs.get({ companyId: job.companyId, connectionId: job.connectionId }, job.id)
                const media = yield* repository.byJob(job.id)
                if (Option.isNone(current) || current.value.state !== "failed" || Option.isNone(media)) return null
                const stagedKey = media.value.stagedKey
                if (stagedKey === null) return null
                const { at } = yield* now
                const failedItem: StoredMedia = {
                  ...media.value,
                  state: "failed",
                  stagedKey: null,
                  failure: {
                    code: current.value.failure?.code ?? "internal_error",
                    message: `its job failed and was not retried within ${Math.round(keptMillis / 3_600_000)} hours, so its staged image was removed; upload the image again under this external_id to process it`
                  },
                  revision: media.value.revision + 1,
                  updatedAt: at
                }
                yield* repository.update(failedItem)
                yield* logChange(failedItem, "updated", at)
                return stagedKey
              })
            )
            if (removed !== null) {
              yield* discard(removed)
              released++
            }
          }
        }
        return released
      })

    const requireMediaWrite = Effect.flatMap(CurrentPrincipal, (principal) =>
      principal.scopes.has("media:write")
        ? Effect.void
        : Effect.fail(
            new ScopeDenied({ message: "retrying a media job needs the scope media:write", required: ["media:write"] })
          )
    )

    /**
     * A media job runs again as it was (its image is still staged); it needs media:write. It keeps its
     * place in the queue, so the company's images still complete in upload order. A paused job is not
     * held to the pending limit: the jobs queued behind it count toward that limit and cannot run
     * before it, so refusing it would leave the company's processing stopped for good.
     */
    const retry = (job: StoredJob) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const millis = yield* Clock.currentTimeMillis
        const paused = job.state === "paused"
        const requeue = yield* transactor.withTransaction(
          Effect.flatMap(currentTraceParent, (traceParent) =>
            jobs.requeue({ companyId: principal.company.id, connectionId: principal.connectionId }, job.id, {
              // Only the state that was read: the limit exemption holds for a job that is still paused.
              from: retryableStates.includes(job.state) ? [job.state] : retryableStates,
              run: job.run + 1,
              keyId: principal.keyId,
              scopes: Array.from(principal.scopes),
              nowMillis: millis,
              at: new Date(millis).toISOString(),
              maxPending: paused ? Number.POSITIVE_INFINITY : maxPendingPerConnection,
              keepPlace: true,
              traceParent
            })
          )
        )
        switch (requeue._tag) {
          case "LimitReached":
            return yield* pendingLimit
          case "NotInState":
            return yield* new JobNotRetryable({
              message: `only failed or paused jobs can be retried; this job is ${requeue.state ?? job.state}`,
              state: requeue.state ?? job.state
            })
          case "Requeued":
            return jobView(requeue.job)
        }
      })

    /** What media jobs are to the worker and the job endpoints: one image each, no report. */
    const jobKind: JobKindHandler = {
      process: (job, workerId) => process(job, workerId),
      counts: (page) => Effect.succeed(new Map(page.map((job) => [job.id, mediaCounts(job)]))),
      report: () => Effect.succeed(null),
      retry,
      authorizeRetry: () => requireMediaWrite
    }

    /**
     * POST /media as a write command (see `WriteRunner`): the queued job wakes an idle worker once
     * committed; a staged file that no write used (a replay, a refusal) is removed.
     */
    const uploadCommand = (fields: Readonly<Record<string, string>>, staged: StagedFile) =>
      command({
        authorize: authorize("media:write"),
        run: applyUpload(fields, staged),
        afterCommit: signal.notify,
        unused: discard(staged.key)
      })

    /** Records a staged upload (POST /media without idempotency). */
    const upload = (fields: Readonly<Record<string, string>>, staged: StagedFile) =>
      runDirect(uploadCommand(fields, staged))

    return {
      authorize,
      stagingAllowance,
      stage,
      discard,
      upload,
      uploadCommand,
      list,
      get,
      content,
      process,
      releaseFailedUploads,
      jobKind
    } as const
  })
}) {}
