/** Domain failures of the media pipeline, each with a stable `code`. */
import { Schema } from "effect"
import { Int } from "../Resources/CommonFields.js"

/** The bytes are not a JPEG, PNG or WebP image (sniffed from the bytes). */
export class UnsupportedImageFormat extends Schema.TaggedError<UnsupportedImageFormat>()("UnsupportedImageFormat", {
  message: Schema.String
}) {
  get code(): "unsupported_image_format" {
    return "unsupported_image_format"
  }
}

/** The image cannot be accepted: its data is corrupt, or it has more than 40 megapixels. */
export class ImageRejected extends Schema.TaggedError<ImageRejected>()("ImageRejected", {
  message: Schema.String,
  reason: Schema.Literals(["corrupt", "too_many_pixels"])
}) {
  get code(): "image_corrupt" | "image_too_many_pixels" {
    return this.reason === "corrupt" ? "image_corrupt" : "image_too_many_pixels"
  }
}

/** Versions are immutable: another file, name or purpose under an external_id that has one needs a new external_id. */
export class MediaVersionConflict extends Schema.TaggedError<MediaVersionConflict>()("MediaVersionConflict", {
  message: Schema.String,
  media_id: Schema.String,
  changed: Schema.Array(Schema.Literals(["file", "name", "purpose"]))
}) {
  get code(): "media_version_immutable" {
    return "media_version_immutable"
  }
}

/** The connection already has 100 MB of images waiting to be processed. */
export class StagingLimitReached extends Schema.TaggedError<StagingLimitReached>()("StagingLimitReached", {
  message: Schema.String,
  retry_after: Int
}) {
  get code(): "staging_limit_reached" {
    return "staging_limit_reached"
  }
}

/** The upload's file is larger than 10 MB (refused while it streams). */
export class UploadTooLarge extends Schema.TaggedError<UploadTooLarge>()("UploadTooLarge", {
  message: Schema.String,
  limit: Int
}) {
  get code(): "payload_too_large" {
    return "payload_too_large"
  }
}

/**
 * A media storage failure. `denied`: the storage refuses access (e.g. the folder is not writable); image
 * processing pauses until an operator fixes it and retries the job. `unavailable`: anything else.
 */
export class MediaStorageError extends Schema.TaggedError<MediaStorageError>()("MediaStorageError", {
  message: Schema.String,
  reason: Schema.Literals(["denied", "unavailable", "not_found"])
}) {
  get code(): "storage_denied" | "storage_unavailable" | "not_found" {
    return this.reason === "denied"
      ? "storage_denied"
      : this.reason === "not_found"
        ? "not_found"
        : "storage_unavailable"
  }
}

/** Images are uploaded as files: a form field or file part holding a URL is not fetched (spec 2.13). */
export class RemoteUrlNotAccepted extends Schema.TaggedError<RemoteUrlNotAccepted>()("RemoteUrlNotAccepted", {
  message: Schema.String,
  path: Schema.String
}) {
  get code(): "remote_url_not_accepted" {
    return "remote_url_not_accepted"
  }
}
