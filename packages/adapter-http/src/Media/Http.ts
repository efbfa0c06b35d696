import { HttpApiBuilder, type HttpApiGroup, HttpServerRequest, HttpServerResponse, Multipart } from "@effect/platform"
import { NodeHttpServerRequest, NodeStream } from "@effect/platform-node"
import {
  Errors,
  type IdempotencyStore,
  Media,
  MediaErrors,
  MediaService,
  type MediaStorage,
  type Transactor,
  WriteCommand
} from "@catalog-sync/core"
import { Effect, type Layer, Option, Schema, Stream } from "effect"
import type { Authentication } from "@catalog-sync/contract"
import { Api } from "@catalog-sync/contract"
import { ApiErrors, Common } from "@catalog-sync/contract"
import { api } from "../ErrorResponses.js"
import { writeEnvelope } from "../Writes.js"
import { requestId } from "../RequestId.js"
import { maxMediaBodyBytes } from "../BodyLimit.js"

const invalid = (path: string, message: string) =>
  new Errors.ValidationFailed({ message: "the form is not valid", issues: [{ path, message }] })

/** The form's fields (spec 2.13); with the one file part, the most parts a valid upload has. */
const knownFields: ReadonlySet<string> = new Set(["external_id", "name", "purpose"])

/** A form field's value, at most: names and external ids are 200 characters, so 4 KiB leaves room for UTF-8. */
export const maxFieldBytes = 4096

/**
 * Limits of the multipart parser: a body of thousands of tiny parts costs seconds of parsing inside
 * the 10 MiB limit, so parsing stops at the first part past the known fields and one file.
 */
const formLimits = { maxParts: Option.some(knownFields.size + 1), maxFieldSize: maxFieldBytes }

const multipartRefusal = (error: Multipart.MultipartError) => {
  switch (error.reason) {
    case "TooManyParts":
      return invalid(
        "$",
        `the form has more than ${knownFields.size + 1} parts: send external_id, name, purpose and one file part named file`
      )
    case "FieldTooLarge":
      return invalid("$", `a form field is longer than ${maxFieldBytes} bytes`)
    default:
      return invalid("$", `the multipart body is not valid (${error.reason})`)
  }
}

/** Reads the multipart body as it streams: fields in memory, the one file part into core's staging. */
const readUpload = (request: HttpServerRequest.HttpServerRequest, media: MediaService.MediaService) =>
  Effect.gen(function* () {
    const raw = NodeStream.fromReadable<MediaErrors.UploadTooLarge | Errors.ValidationFailed>(
      () => NodeHttpServerRequest.toIncomingMessage(request),
      () => invalid("$", "the request body could not be read"),
      { closeOnDone: false }
    ).pipe(
      Stream.mapAccumEffect(0, (total, chunk: Uint8Array) =>
        total + chunk.length > maxMediaBodyBytes
          ? Effect.fail(
              new MediaErrors.UploadTooLarge({
                message: `images are limited to ${Media.maxUploadBytes} bytes`,
                limit: Media.maxUploadBytes
              })
            )
          : Effect.succeed([total + chunk.length, chunk] as const)
      )
    )
    const headers = request.headers as Record<string, string>
    const parts: Stream.Stream<
      Multipart.Part,
      Multipart.MultipartError | MediaErrors.UploadTooLarge | Errors.ValidationFailed
    > = Stream.pipeThroughChannel(
      raw,
      Multipart.makeChannel<MediaErrors.UploadTooLarge | Errors.ValidationFailed>(headers)
    )
    const fields: Record<string, string> = {}
    let staged: MediaStorage.StagedFile | undefined
    yield* Stream.runForEach(parts, (part) =>
      Effect.gen(function* () {
        if (part._tag === "Field") {
          // Refused as it arrives: nothing after an unknown or repeated field is read or staged.
          yield* MediaService.refuseRemoteUrls({ [part.key]: part.value })
          if (!knownFields.has(part.key)) {
            return yield* invalid(
              `$.${part.key}`,
              part.key === "file"
                ? "must be a file part (with a filename)"
                : "is not a field of the form (external_id, name, purpose, file)"
            )
          }
          if (part.key in fields) return yield* invalid(`$.${part.key}`, "is sent more than once")
          fields[part.key] = part.value
          return
        }
        if (part.key !== "file")
          return yield* Effect.zipRight(
            Stream.runDrain(part.content),
            invalid(`$.${part.key}`, "the file part must be named file")
          )
        if (staged !== undefined)
          return yield* Effect.zipRight(Stream.runDrain(part.content), invalid("$.file", "one file per request"))
        staged = yield* media.stage(part.content)
      })
    ).pipe(
      Multipart.withLimits(formLimits),
      Effect.catchTag("MultipartError", (error) => Effect.fail(multipartRefusal(error))),
      // A refusal after the file part was staged (a second file, the body over its limit) keeps nothing.
      Effect.tapErrorCause(() => (staged === undefined ? Effect.void : Effect.ignore(media.discard(staged.key))))
    )
    if (staged === undefined) {
      yield* MediaService.refuseRemoteUrls(fields)
      return yield* invalid("$.file", "is required")
    }
    return { fields, staged }
  })

/** Handlers of the media endpoints. */
export const MediaHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"catalog-sync", "media">,
  never,
  MediaService.MediaService | IdempotencyStore.IdempotencyStore | Transactor.Transactor | Authentication
> = HttpApiBuilder.group(Api, "media", (handlers) =>
  Effect.gen(function* () {
    const media = yield* MediaService.MediaService
    return handlers
      .handleRaw("upload", ({ request }) =>
        Effect.gen(function* () {
          const key = yield* Schema.decodeUnknown(Common.IdempotencyHeaders)(request.headers).pipe(
            Effect.catchAll(() =>
              Effect.flatMap(requestId, (id) =>
                Effect.fail(
                  ApiErrors.make(422, id, {
                    code: "idempotency_key_invalid",
                    message: "send an Idempotency-Key header matching ^[A-Za-z0-9._:-]{8,120}$"
                  })
                )
              )
            )
          )
          // Checked before the body is read: a refused upload stages nothing.
          yield* api(media.authorize("media:write"))
          const { fields, staged } = yield* api(readUpload(request, media))
          const result = yield* writeEnvelope(
            key["idempotency-key"],
            { ...fields, file_sha256: staged.sha256 },
            WriteCommand.map(media.uploadCommand(fields, staged), (job) => ({ job }))
          )
          return HttpServerResponse.unsafeJson(result, { status: 202 })
        })
      )
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = yield* api(
            media.list({
              limit: urlParams.limit ?? Common.defaultLimit,
              cursor: urlParams.cursor,
              external_id: urlParams.external_id
            })
          )
          return { request_id: yield* requestId, ...page }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const record = yield* api(media.get(path.id))
          return { request_id: yield* requestId, record }
        })
      )
      .handle("content", ({ path }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const found = yield* api(media.content(path.id))
          const cacheHeaders = { etag: found.etag, "cache-control": "private, max-age=31536000, immutable" }
          if (Option.getOrUndefined(Option.fromNullable(request.headers["if-none-match"])) === found.etag) {
            return HttpServerResponse.empty({ status: 304, headers: cacheHeaders })
          }
          return HttpServerResponse.stream(
            Stream.mapError(found.stream, (e) => e),
            {
              status: 200,
              contentType: Media.outputContentType,
              headers: {
                ...cacheHeaders,
                ...(found.media.bytes === null ? {} : { "content-length": String(found.media.bytes) })
              }
            }
          )
        })
      )
  })
)
