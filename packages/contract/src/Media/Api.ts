import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Media } from "@catalog-sync/core"
import { Schema } from "effect"
import { Conflict, NotFound } from "../ApiErrors.js"
import { Authentication } from "../Authentication.js"
import { operationExamples } from "../Examples.js"
import { mediaContentExamples, mediaGetExamples, mediaListExamples, uploadExamples } from "./Examples.js"
import { listFields } from "../Catalog/Api.js"
import { ExternalIdParameter, IdempotencyHeaders, PageCursor, PathParams, strict } from "../Common.js"
import { JobAccepted } from "../Jobs/Api.js"

/** GET /media query: limit, cursor and an external_id filter. */
export const MediaListQuery = Schema.Struct({
  limit: listFields.limit,
  cursor: Schema.optional(PageCursor("a media id")),
  external_id: Schema.optional(
    ExternalIdParameter(
      "Only the item mapped to this external_id by the caller's connection (1-200 characters).",
      "img-sofa-oslo-front"
    )
  )
}).annotations(strict)

export const MediaListResponse = Schema.Struct({
  request_id: Schema.UUID,
  records: Schema.Array(Media.MediaRecord),
  next_cursor: Schema.NullOr(Schema.UUID),
  has_more: Schema.Boolean
})

export const MediaResponse = Schema.Struct({ request_id: Schema.UUID, record: Media.MediaRecord })

/** The multipart form of POST /media (documentation; the handler reads the stream itself). */
export const MediaUpload = HttpApiSchema.MultipartStream(
  Schema.Struct({
    external_id: Schema.String,
    name: Schema.String,
    purpose: Schema.optional(
      Media.MediaPurpose.annotations({
        description: "catalog (the default: long edge up to 1500 px) or option (up to 720 px)."
      })
    ),
    // One file part: documented as a file (a binary string), which form renderers offer as a file picker.
    file: Multipart.SingleFileSchema.annotations({
      jsonSchema: {
        type: "string",
        format: "binary",
        description: "The image (JPEG, PNG or WebP, at most 10 MB and 40 megapixels)."
      }
    })
  })
)

/** POST /media, GET /media, GET /media/{id} and its content. */
export const MediaApi = HttpApiGroup.make("media")
  .annotate(
    OpenApi.Description,
    "Images: upload one per request (processed to WebP in the background), then link it to products, categories, collections, brands or fabric options."
  )
  .add(
    HttpApiEndpoint.post("upload", "/media")
      .setHeaders(IdempotencyHeaders)
      .setPayload(MediaUpload)
      .addSuccess(JobAccepted, { status: 202 })
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Upload one image (multipart/form-data)")
      .annotate(OpenApi.Transform, operationExamples(uploadExamples))
      .annotate(
        OpenApi.Description,
        "Fields external_id, name, purpose (catalog | option; default catalog) and one file part named `file`. Needs media:write. The format is sniffed from the bytes: JPEG, PNG or WebP (415 unsupported_image_format); 422 image_corrupt or image_too_many_pixels (over 40 MP); 422 remote_url_not_accepted when a field or the file holds a URL (remote images are never fetched); 413 over 10 MB; 429 staging_limit_reached past 100 MB staged per connection. A refused upload keeps nothing. 202 with the queued media job; the same external_id with the same file, name and purpose answers with the job of that version; a change is 409 media_version_immutable."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/media")
      .setUrlParams(MediaListQuery)
      .addSuccess(MediaListResponse)
      .annotate(OpenApi.Summary, "List the company's media (media:read)")
      .annotate(
        OpenApi.Description,
        "A cursor page of the company's media in id order, whichever connection uploaded them."
      )
      .annotate(OpenApi.Transform, operationExamples(mediaListExamples))
  )
  .add(
    HttpApiEndpoint.get("get", "/media/:id")
      .setPath(PathParams("The media item's id."))
      .addSuccess(MediaResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Read one media item (media:read)")
      .annotate(
        OpenApi.Description,
        "Its state (queued, completed, failed), processed size and content_url once completed."
      )
      .annotate(OpenApi.Transform, operationExamples(mediaGetExamples))
  )
  .add(
    HttpApiEndpoint.get("content", "/media/:id/content")
      .setPath(PathParams("The media item's id."))
      .addSuccess(
        HttpApiSchema.withEncoding(Schema.Uint8ArrayFromSelf, { kind: "Uint8Array", contentType: "image/webp" })
      )
      .addError(NotFound)
      .annotate(
        OpenApi.Summary,
        "The processed WebP image of a completed item (media:read), with ETag and Cache-Control"
      )
      .annotate(
        OpenApi.Description,
        "The WebP bytes with ETag (the content hash) and Cache-Control: private, max-age=31536000, immutable; If-None-Match answers 304. 404 until the item is completed."
      )
      .annotate(OpenApi.Transform, operationExamples(mediaContentExamples))
  )
  .middleware(Authentication)
