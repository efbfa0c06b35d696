import { HttpApiBuilder, type HttpApiGroup, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
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
import type * as Multipasta from "multipasta"
import * as UploadForm from "./UploadForm.js"

const invalid = (path: string, message: string) =>
  new Errors.ValidationFailed({ message: "the form is not valid", issues: [{ path, message }] })

/** The form's fields (spec 2.13); with the one file part, the most parts a valid upload has. */
const knownFields: ReadonlySet<string> = new Set(["external_id", "name", "purpose"])

/** A form field's value, at most: names and external ids are 200 characters, so 4 KiB leaves room for UTF-8. */
export const maxFieldBytes = 4096

/** Why a multipart body does not parse, as the client can mend it. */
const malformedMessage = (error: Multipasta.MultipartError): string => {
  switch (error._tag) {
    case "ReachedLimit":
      return error.limit === "MaxParts"
        ? `the form has more than ${knownFields.size + 1} parts: send external_id, name, purpose and one file part named file`
        : `a form field is longer than ${maxFieldBytes} bytes`
    case "InvalidBoundary":
      return "the multipart body is not valid: the Content-Type names no boundary"
    case "BadHeaders":
      return "the multipart body is not valid: a part's headers do not parse"
    case "InvalidDisposition":
      return "the multipart body is not valid: a part has no Content-Disposition with a name"
    case "EndNotReached":
      return "the multipart body is not valid: it ends before the form's closing boundary"
  }
}

/** What reading an upload's form may be refused with. */
type FormRefusal = MediaErrors.UploadTooLarge | MediaErrors.RemoteUrlNotAccepted | Errors.ValidationFailed

const unreadable = () => invalid("$", "the request body could not be read")

/**
 * The form's rules, checked as its bytes arrive: nothing after an unknown or repeated field, a second
 * file or a file part under another name is read or staged, and a body of thousands of tiny parts stops
 * at the first part past the known fields and one file.
 */
const formRules: UploadForm.FormRules<FormRefusal> = {
  maxBodyBytes: maxMediaBodyBytes,
  maxParts: knownFields.size + 1,
  maxFieldBytes: maxFieldBytes,
  field: (key, value, before) =>
    MediaService.remoteUrlRefusal({ [key]: value }) ??
    (!knownFields.has(key)
      ? invalid(
          `$.${key}`,
          key === "file"
            ? "must be a file part (with a filename)"
            : "is not a field of the form (external_id, name, purpose, file)"
        )
      : key in before
        ? invalid(`$.${key}`, "is sent more than once")
        : undefined),
  notText: (key) => invalid(`$.${key}`, "must be UTF-8 text"),
  file: (name, earlier) =>
    name !== "file"
      ? invalid(`$.${name}`, "the file part must be named file")
      : earlier > 0
        ? invalid("$.file", "one file per request")
        : undefined,
  tooLarge: () =>
    new MediaErrors.UploadTooLarge({
      message: `images are limited to ${Media.maxUploadBytes} bytes`,
      limit: Media.maxUploadBytes
    }),
  malformed: (error) => invalid("$", malformedMessage(error)),
  unreadable
}

const settled = <A>(
  wait: (callback: (settled: UploadForm.Settled<A, FormRefusal>) => void) => void
): Effect.Effect<A, FormRefusal> =>
  Effect.async((resume) =>
    wait((outcome) => resume(outcome._tag === "Done" ? Effect.succeed(outcome.value) : Effect.fail(outcome.refusal)))
  )

/** Reads the multipart body as it streams: fields in memory, the one file part into core's staging. */
const readUpload = (request: HttpServerRequest.HttpServerRequest, media: MediaService.MediaService) =>
  Effect.suspend(() => {
    const form = UploadForm.readForm(NodeHttpServerRequest.toIncomingMessage(request), request.headers, formRules)
    let staged: MediaStorage.StagedFile | undefined
    return Effect.gen(function* () {
      const file = yield* settled(form.whenFile)
      if (file === undefined) {
        yield* MediaService.refuseRemoteUrls(form.fields)
        return yield* invalid("$.file", "is required")
      }
      staged = yield* media.stage(file, (thrown): FormRefusal =>
        thrown instanceof UploadForm.FormRefused ? (thrown.refusal as FormRefusal) : unreadable()
      )
      // Fields may follow the file part; the form is whole once its closing boundary is read.
      yield* settled(form.whenEnded)
      return { fields: { ...form.fields }, staged }
    }).pipe(
      Effect.ensuring(Effect.sync(form.stop)),
      // A refusal after the file part was staged (a second file, a later bad field) keeps nothing.
      Effect.tapErrorCause(() => (staged === undefined ? Effect.void : Effect.ignore(media.discard(staged.key))))
    )
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
