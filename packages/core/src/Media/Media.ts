import { Effect, Schema } from "effect"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import { ExternalId, UUID } from "../Shared/Ids.js"
import { NameText } from "../internal/Shared/Text.js"
import { Int } from "../Resources/CommonFields.js"

/** What an image is for: catalog pictures keep a long edge of up to 1500 px, option swatches 720 px. */
export const MediaPurpose = Schema.Literals(["catalog", "option"]).annotate({ identifier: "MediaPurpose" })
export type MediaPurpose = typeof MediaPurpose.Type

/** `queued` until its job has processed it; `completed` media can be referenced; `failed` cannot. */
export const MediaState = Schema.Literals(["queued", "completed", "failed"]).annotate({ identifier: "MediaState" })
export type MediaState = typeof MediaState.Type

/** The accepted source formats, sniffed from the bytes (never from the file name or content type). */
export type ImageFormat = "jpeg" | "png" | "webp"

/** Spec 8: an uploaded image is at most 10 MB (10 * 1024 * 1024 bytes) and 40 megapixels. */
export const maxUploadBytes = 10 * 1024 * 1024
/** The most pixels an accepted image may have. */
export const maxPixels = 40_000_000
/** Spec 8: images staged (uploaded, not processed yet) per connection. */
export const maxStagedBytesPerConnection = 100 * 1024 * 1024

/** The long edge of the processed image, never enlarged. */
export const maxLongEdge = (purpose: MediaPurpose): number => (purpose === "catalog" ? 1500 : 720)

/** The processed file's content type. */
export const outputContentType = "image/webp"

/** The multipart fields of POST /media besides the file (spec 2.13). */
export const MediaFields = Schema.Struct({
  external_id: ExternalId,
  name: NameText(1, 200),
  // Spec 2.13 lists purpose without "required": an upload without it is a catalog image.
  purpose: MediaPurpose.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed("catalog" as const)))
}).annotate({ identifier: "MediaFields" })
export type MediaFields = typeof MediaFields.Type

/** How the form fields are decoded: unknown fields are refused, and every failing field is listed. */
export const mediaFieldsParseOptions = { onExcessProperty: "error", errors: "all" } as const

const urlPattern = /^\s*[a-z][a-z0-9+.-]*:\/\//i

/** Whether a text is a URL (`scheme://…`): images are uploaded as files and URLs are never fetched. */
export const isRemoteUrl = (text: string): boolean => urlPattern.test(text)

/**
 * The form field that holds a URL in place of the image (`$.file`, `$.url`, …), if any. external_id and
 * name are the caller's own texts and may look like URLs; every other field is either `purpose` or
 * refused anyway, so a URL there is an attempt to import a remote image and gets a clearer answer.
 */
export const remoteUrlField = (fields: Readonly<Record<string, string>>): string | undefined => {
  const found = Object.entries(fields).find(
    ([key, value]) => key !== "external_id" && key !== "name" && isRemoteUrl(value)
  )
  return found === undefined ? undefined : `$.${found[0]}`
}

/**
 * The format from the first bytes: JPEG (FF D8 FF), PNG (89 50 4E 47 0D 0A 1A 0A), WebP (RIFF....WEBP);
 * anything else is not accepted.
 */
export const sniffFormat = (head: Uint8Array): ImageFormat | undefined => {
  const at = (i: number) => head[i]
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return "jpeg"
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (png.every((b, i) => at(i) === b)) return "png"
  const ascii = (from: number, text: string) => Array.from(text).every((c, i) => at(from + i) === c.charCodeAt(0))
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "webp"
  return undefined
}

/** Processed files are content-addressed per company: the same source and purpose are stored once. */
export const contentKey = (sourceSha256: string, purpose: MediaPurpose): string => `${sourceSha256}-${purpose}.webp`

/** The size a processed image gets: the long edge at most `maxLongEdge`, never enlarged. */
export const targetSize = (
  width: number,
  height: number,
  purpose: MediaPurpose
): { readonly width: number; readonly height: number } => {
  const limit = maxLongEdge(purpose)
  const long = Math.max(width, height)
  if (long <= limit) return { width, height }
  const scale = limit / long
  return width >= height
    ? { width: limit, height: Math.max(1, Math.round(height * scale)) }
    : { width: Math.max(1, Math.round(width * scale)), height: limit }
}

/** A media item as the ports store it. */
export interface StoredMedia {
  readonly id: RecordId
  readonly companyId: CompanyId
  /** The connection that uploaded it; its mapping carries the external_id. */
  readonly connectionId: ConnectionId
  readonly externalId: string
  readonly name: string
  readonly purpose: MediaPurpose
  readonly state: MediaState
  readonly jobId: string
  readonly sourceSha256: string
  readonly sourceBytes: number
  readonly sourceFormat: ImageFormat
  /** The staged upload until it is processed (then null); counts toward the connection's staging limit. */
  readonly stagedKey: string | null
  readonly contentKey: string
  readonly width: number | null
  readonly height: number | null
  /** Size of the processed file. */
  readonly bytes: number | null
  readonly failure: { readonly code: string; readonly message: string } | null
  readonly revision: number
  readonly createdAt: string
  readonly updatedAt: string
}

/** A media item as the API returns it (spec-gaps.md, "Media"). */
export const MediaRecord = Schema.Struct({
  id: UUID,
  external_id: Schema.NullOr(Schema.String).annotate({
    description: "The caller's connection mapping; null for another connection's upload."
  }),
  name: Schema.String,
  purpose: MediaPurpose,
  state: MediaState,
  job_id: UUID.annotate({ description: "The job that processes (or processed) this version." }),
  source_format: Schema.Literals(["jpeg", "png", "webp"]),
  source_bytes: Int,
  width: Schema.NullOr(Int).annotate({ description: "Of the processed image; null until completed." }),
  height: Schema.NullOr(Int),
  bytes: Schema.NullOr(Int).annotate({
    description: "Size of the processed WebP file; null until completed."
  }),
  content_type: Schema.NullOr(Schema.String).annotate({ description: "image/webp once completed." }),
  content_url: Schema.NullOr(Schema.String).annotate({
    description: "Path of GET /media/{id}/content once completed."
  }),
  failure: Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String })),
  revision: Int,
  created_at: Schema.String,
  updated_at: Schema.String
}).annotate({ identifier: "Media" })
export type MediaRecord = typeof MediaRecord.Type

/** A stored media item as the API returns it. */
export const render = (media: StoredMedia, externalId: string | null): MediaRecord => ({
  id: media.id,
  external_id: externalId,
  name: media.name,
  purpose: media.purpose,
  state: media.state,
  job_id: media.jobId,
  source_format: media.sourceFormat,
  source_bytes: media.sourceBytes,
  width: media.width,
  height: media.height,
  bytes: media.bytes,
  content_type: media.state === "completed" ? outputContentType : null,
  content_url: media.state === "completed" ? `/api/v1/media/${media.id}/content` : null,
  failure: media.failure,
  revision: media.revision,
  created_at: media.createdAt,
  updated_at: media.updatedAt
})
