import { Context, Effect, Layer } from "effect"
import { authorize } from "../internal/Media/MediaAccess.js"
import { makeMediaJob } from "../internal/Media/MediaJob.js"
import { makeQueries } from "../internal/Media/MediaQueries.js"
import { makeUpload } from "../internal/Media/MediaUpload.js"

export { failedImageKeptMillis, ProcessingTimeout } from "../internal/Media/MediaJob.js"
export type { MediaPage } from "../internal/Media/MediaQueries.js"
export { refuseRemoteUrls, remoteUrlRefusal, stagingRetryAfterSeconds } from "../internal/Media/MediaUpload.js"
export { mediaCounts } from "../internal/Media/MediaViews.js"

/**
 * The media pipeline (spec 2.13): uploads are staged and checked (format sniffed from the bytes, header
 * dimensions), recorded with a queued `media` job and an external_id mapping; a worker processes one
 * image of a company at a time, in upload order, into a content-addressed WebP file of the company's
 * folder. Versions are immutable.
 */
export class MediaService extends Context.Service<MediaService>()("@catalog-sync/core/MediaService", {
  make: Effect.gen(function* () {
    const uploads = yield* makeUpload
    const queries = yield* makeQueries
    const job = yield* makeMediaJob
    return {
      authorize,
      stagingAllowance: uploads.stagingAllowance,
      stage: uploads.stage,
      discard: uploads.discard,
      upload: uploads.upload,
      uploadCommand: uploads.uploadCommand,
      list: queries.list,
      get: queries.get,
      content: queries.content,
      process: job.process,
      releaseFailedUploads: job.releaseFailedUploads,
      jobKind: job.jobKind
    } as const
  })
}) {
  /** The service over its ports (the layer Effect 3's `Effect.Service` generated). */
  static readonly Default = Layer.effect(this, this.make)
}
