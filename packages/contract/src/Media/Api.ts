import { Ids, Media } from "@catalog-sync/core"
import { Schema } from "effect"
import { Multipart } from "effect/http"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Conflict, NotFound, requestErrors } from "../ApiErrors.js"
import { Authentication } from "../Authentication.js"
import { operationDocs } from "../Examples.js"
import { mediaContentExamples, mediaGetExamples, mediaListExamples, uploadExamples } from "./Examples.js"
import { listFields } from "../Catalog/Api.js"
import { ExternalIdParameter, IdempotencyHeaders, PageCursor, PathParams, strict } from "../Common.js"
import { type JsonObject, objectAt } from "../internal/Json.js"
import { Accepted } from "../Jobs/Api.js"

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
}).annotate(strict)

export const MediaListResponse = Schema.Struct({
  request_id: Ids.UUID,
  records: Schema.Array(Media.MediaRecord),
  next_cursor: Schema.NullOr(Ids.UUID),
  has_more: Schema.Boolean
})

export const MediaResponse = Schema.Struct({ request_id: Ids.UUID, record: Media.MediaRecord })

/** The multipart form of POST /media (documentation; the handler reads the stream itself). */
export const MediaUpload = Schema.Struct({
  external_id: Schema.String,
  name: Schema.String,
  // The literals without core's identifier: the form documents the field inline, with its description.
  purpose: Schema.optionalKey(
    Schema.Literals(Media.MediaPurpose.literals).annotate({
      description: "catalog (the default: long edge up to 1500 px) or option (up to 720 px)."
    })
  ),
  // One file part: documented as a file (a binary string), which form renderers offer as a file picker.
  file: Multipart.SingleFileSchema
}).pipe(HttpApiSchema.asMultipartStream())

const fileDescription = "The image (JPEG, PNG or WebP, at most 10 MB and 40 megapixels)."

/**
 * The upload's documentation: Effect 4 documents a file part as `{ type: string, format: binary }` and
 * drops its annotations, so the file's description is written into the form's schema here.
 */
const uploadDocs = (operation: JsonObject): JsonObject => {
  const documented = operationDocs(uploadExamples, IdempotencyHeaders)(operation)
  const file = objectAt(documented, "requestBody", "content", "multipart/form-data", "schema", "properties", "file")
  if (file !== undefined) file.description = fileDescription
  return documented
}

const mediaPath = PathParams("The media item's id.")

/** POST /media, GET /media, GET /media/{id} and its content. */
export const MediaApi = HttpApiGroup.make("media")
  .annotate(
    OpenApi.Description,
    "Images: upload one per request (processed to WebP in the background), then link it to products, categories, collections, brands or fabric options."
  )
  .add(
    HttpApiEndpoint.post("upload", "/media", {
      headers: IdempotencyHeaders,
      payload: MediaUpload,
      success: Accepted,
      error: [...requestErrors, NotFound, Conflict]
    })
      .annotate(OpenApi.Summary, "Upload one image (multipart/form-data)")
      .annotate(OpenApi.Transform, uploadDocs)
      .annotate(
        OpenApi.Description,
        "Fields external_id, name, purpose (catalog | option; default catalog) and one file part named `file`. Needs media:write. The format is sniffed from the bytes: JPEG, PNG or WebP (415 unsupported_image_format); 422 image_corrupt or image_too_many_pixels (over 40 MP); 422 remote_url_not_accepted when a field or the file holds a URL (remote images are never fetched); 413 over 10 MB; 429 staging_limit_reached past 100 MB staged per connection. A refused upload keeps nothing. 202 with the queued media job; the same external_id with the same file, name and purpose answers with the job of that version; a change is 409 media_version_immutable."
      ),
    HttpApiEndpoint.get("list", "/media", { query: MediaListQuery, success: MediaListResponse, error: requestErrors })
      .annotate(OpenApi.Summary, "List the company's media (media:read)")
      .annotate(
        OpenApi.Description,
        "A cursor page of the company's media in id order, whichever connection uploaded them."
      )
      .annotate(OpenApi.Transform, operationDocs(mediaListExamples, MediaListQuery)),
    HttpApiEndpoint.get("get", "/media/:id", {
      params: mediaPath,
      success: MediaResponse,
      error: [...requestErrors, NotFound]
    })
      .annotate(OpenApi.Summary, "Read one media item (media:read)")
      .annotate(
        OpenApi.Description,
        "Its state (queued, completed, failed), processed size and content_url once completed."
      )
      .annotate(OpenApi.Transform, operationDocs(mediaGetExamples, mediaPath)),
    HttpApiEndpoint.get("content", "/media/:id/content", {
      params: mediaPath,
      success: Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "image/webp" })),
      error: [...requestErrors, NotFound]
    })
      .annotate(
        OpenApi.Summary,
        "The processed WebP image of a completed item (media:read), with ETag and Cache-Control"
      )
      .annotate(
        OpenApi.Description,
        "The WebP bytes with ETag (the content hash) and Cache-Control: private, max-age=31536000, immutable; If-None-Match answers 304. 404 until the item is completed."
      )
      .annotate(OpenApi.Transform, operationDocs(mediaContentExamples, mediaPath))
  )
  .middleware(Authentication)
