import { Clock, Context, Duration, Effect, Option } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import { CurrentPrincipal } from "../../Auth/Principal.js"
import { ChangeLog } from "../../Changes/ChangeLog.js"
import { type JobFailure, maxPendingPerConnection, retryableStates, type StoredJob } from "../../Jobs/Job.js"
import { jobAccess } from "../Jobs/JobAccess.js"
import { JobNotRetryable } from "../../Jobs/JobErrors.js"
import type { JobKindHandler } from "../Jobs/JobKindHandler.js"
import { JobStore } from "../../Jobs/JobStore.js"
import { currentTraceParent } from "../Jobs/JobTrace.js"
import { ScopeDenied } from "../../Shared/Errors.js"
import { now } from "../Shared/Now.js"
import { Transactor } from "../../Shared/Transactor.js"
import { ImageProcessor } from "../../Media/ImageProcessor.js"
import { maxLongEdge, maxPixels, type StoredMedia } from "../../Media/Media.js"
import { ImageRejected } from "../../Media/MediaErrors.js"
import { MediaRepository } from "../../Media/MediaRepository.js"
import { MediaStaging, MediaStorage } from "../../Media/MediaStorage.js"
import { pendingLimit } from "./MediaUpload.js"
import { jobView, mediaChange, mediaCounts } from "./MediaViews.js"

/**
 * How long processing one image may take. A stalled decoder would otherwise hold the company's media
 * queue (one image at a time) for good, its heartbeat keeping the job's lease alive.
 */
export const ProcessingTimeout = Context.Reference<Duration.Duration>(
  "@catalog-sync/core/MediaService/ProcessingTimeout",
  { defaultValue: () => Duration.minutes(2) }
)

/**
 * How long a failed media job keeps its image staged, so that a retry (with an active key, once the
 * processor or the storage works again) needs no new upload. Then the image is removed and the item
 * fails; an upload of the same image under its external_id restarts the job.
 */
export const failedImageKeptMillis = 24 * 60 * 60 * 1000

/**
 * The media job (kind `media`): a worker processes one image of a company at a time, in upload order,
 * into a content-addressed WebP file of the company's folder; a failed job is retried, and the staged
 * images of failed jobs not retried in time are released.
 */
export const makeMediaJob = Effect.gen(function* () {
  const repository = yield* MediaRepository
  const staging = yield* MediaStaging
  const storage = yield* MediaStorage
  const images = yield* ImageProcessor
  const changes = yield* ChangeLog
  const jobs = yield* JobStore
  const transactor = yield* Transactor
  const accounts = yield* Accounts
  const processingTimeout = yield* ProcessingTimeout

  const discard = (key: string) => Effect.ignore(staging.remove(key))

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
              yield* changes.append(mediaChange(failed, "updated", at))
              yield* jobs.finish(job.id, workerId, { state: "failed", failure, at })
            })
          )
          if (media.stagedKey !== null) yield* discard(media.stagedKey)
        })

      const result = yield* Effect.result(
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
            .pipe(Effect.timeoutOrElse({ duration: processingTimeout, orElse: () => Effect.fail("TimedOut" as const) }))
          yield* storage.put(folder, media.contentKey, processed.data)
          return { width: processed.width, height: processed.height, bytes: processed.data.byteLength }
        })
      )
      if (result._tag === "Failure") {
        const error = result.failure
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
        width: result.success.width,
        height: result.success.height,
        bytes: result.success.bytes,
        failure: null,
        revision: media.revision + 1,
        updatedAt: at
      }
      yield* transactor.withTransaction(
        Effect.gen(function* () {
          yield* repository.update(completed)
          yield* changes.append(mediaChange(completed, "updated", at))
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
              yield* changes.append(mediaChange(failedItem, "updated", at))
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
      const requeue = yield* transactor.atomically(
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

  return { process, releaseFailedUploads, jobKind } as const
})
