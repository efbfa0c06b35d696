import { Clock, Effect, Option, Schema } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import { Unauthenticated } from "../../Auth/AuthErrors.js"
import { accessStopped, principalOf } from "../../Auth/Authenticate.js"
import { CurrentPrincipal, type Principal } from "../../Auth/Principal.js"
import { Mappings } from "../../Catalog/Mappings.js"
import { ChangeLog } from "../../Changes/ChangeLog.js"
import { maxPendingPerConnection, queued, type StoredJob } from "../../Jobs/Job.js"
import { JobLimitReached } from "../../Jobs/JobErrors.js"
import { JobSignal } from "../../Jobs/JobSignal.js"
import { JobStore } from "../../Jobs/JobStore.js"
import { currentTraceParent } from "../Jobs/JobTrace.js"
import { ValidationFailed } from "../../Shared/Errors.js"
import { Ids, type RecordId } from "../../Shared/Ids.js"
import { now } from "../Shared/Now.js"
import { plainIssues } from "../../Shared/PlainIssues.js"
import { Transactor } from "../../Shared/Transactor.js"
import { command, runDirect } from "../../Writes/WriteCommand.js"
import { ImageProcessor } from "../../Media/ImageProcessor.js"
import {
  contentKey,
  isRemoteUrl,
  maxPixels,
  maxStagedBytesPerConnection,
  maxUploadBytes,
  MediaFields,
  mediaFieldsParseOptions,
  remoteUrlField,
  sniffFormat,
  type StoredMedia
} from "../../Media/Media.js"
import { authorize, mediaScope, requireScope } from "./MediaAccess.js"
import {
  ImageRejected,
  MediaVersionConflict,
  RemoteUrlNotAccepted,
  StagingLimitReached,
  UnsupportedImageFormat,
  UploadTooLarge
} from "../../Media/MediaErrors.js"
import { MediaRepository } from "../../Media/MediaRepository.js"
import { MediaStaging, type StagedFile } from "../../Media/MediaStorage.js"
import { jobView, mediaChange } from "./MediaViews.js"

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

/** Seconds a client waits when its connection's staged images reach 100 MB. */
export const stagingRetryAfterSeconds = 10

/** The refusal of a job over the connection's pending limit. */
export const pendingLimit = new JobLimitReached({
  message: `this connection has ${maxPendingPerConnection} pending (queued or running) jobs; retry when one has finished`,
  limit: maxPendingPerConnection,
  retry_after: 5
})

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

/**
 * The upload use case (POST /media, spec 2.13): the file is staged as it streams in, within the file
 * and staging limits; the fields and the image are checked; then the item is recorded with its queued
 * `media` job and its external_id mapping, or an existing identical version is answered.
 */
export const makeUpload = Effect.gen(function* () {
  const repository = yield* MediaRepository
  const staging = yield* MediaStaging
  const images = yield* ImageProcessor
  const mappings = yield* Mappings
  const changes = yield* ChangeLog
  const jobs = yield* JobStore
  const transactor = yield* Transactor
  const accounts = yield* Accounts
  const ids = yield* Ids
  const signal = yield* JobSignal

  const discard = (key: string) => Effect.ignore(staging.remove(key))

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
    Schema.decodeUnknownEffect(MediaFields)(fields, mediaFieldsParseOptions).pipe(
      Effect.mapError(
        (error) =>
          new ValidationFailed({
            message: "the form fields are not valid",
            issues: plainIssues(error)
          })
      )
    )

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
      return yield* transactor.atomically(
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
              yield* changes.append(mediaChange(queuedAgain, "updated", at))
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
      const scope = mediaScope(principal.company.id, principal.connectionId)
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
          return yield* Effect.die(new Error(`media ${version.id} without its job ${version.jobId}`))
        if (job.value.state === "failed" && version.stagedKey === null)
          return yield* restage(principal, version, job.value, staged)
        yield* discard(staged.key)
        return jobView(job.value)
      }
      // The header is nearly always within the head kept while staging; the whole file only otherwise.
      const info = yield* staged.bytes <= staged.head.byteLength
        ? images.inspect(staged.head)
        : images.inspect(staged.head).pipe(Effect.catch(() => Effect.flatMap(staging.read(staged.key), images.inspect)))
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
      yield* transactor.atomically(
        Effect.gen(function* () {
          const stagedBytes = yield* repository.stagedBytes(principal.company.id, principal.connectionId)
          if (stagedBytes + staged.bytes > maxStagedBytesPerConnection) return yield* stagingFull
          // The mapping first: a concurrent upload of the same external_id fails here, before writes
          // that some stores (the in-memory ones) do not roll back.
          yield* mappings.insert({ ...scope, externalId: fields.external_id, recordId: media.id, createdAt: at })
          if (!(yield* jobs.insert(job, maxPendingPerConnection))) return yield* pendingLimit
          yield* repository.insert(media)
          yield* changes.append(mediaChange(media, "created", at))
        })
      )
      return jobView(job)
    }).pipe(Effect.tapCause(() => discard(staged.key)))

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

  return { stagingAllowance, stage, discard, upload, uploadCommand } as const
})
