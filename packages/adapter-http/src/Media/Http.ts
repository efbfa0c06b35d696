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
import { Effect, type Layer, Stream } from "effect"
import { type HttpServerRequest, HttpServerResponse, type MultipartParser } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import type { Authentication } from "@catalog-sync/contract"
import { Api } from "@catalog-sync/contract"
import { Common } from "@catalog-sync/contract"
import { api } from "../ErrorResponses.js"
import { writeEnvelope } from "../Writes.js"
import { requestId } from "../RequestId.js"
import { incomingOf, maxMediaBodyBytes } from "../BodyLimit.js"
import * as UploadForm from "./UploadForm.js"
import { servicesAtBuild } from "../GroupServices.js"

const invalid = (path: string, message: string) =>
  new Errors.ValidationFailed({ message: "the form is not valid", issues: [{ path, message }] })

/** The form's fields (spec 2.13); with the one file part, the most parts a valid upload has. */
const knownFields: ReadonlySet<string> = new Set(["external_id", "name", "purpose"])

/** A form field's value, at most: names and external ids are 200 characters, so 4 KiB leaves room for UTF-8. */
export const maxFieldBytes = 4096

/** Why a multipart body does not parse, as the client can mend it. */
const malformedMessage = (error: MultipartParser.MultipartError): string => {
  switch (error._tag) {
    case "ReachedLimit":
      return error.limit === "MaxParts"
        ? `the form has more than ${knownFields.size + 1} parts: send external_id, name, purpose and one file part named file`
        : `a form field is longer than ${maxFieldBytes} bytes`
    case "InvalidBoundary":
      return "the multipart body is not valid: the Content-Type names no boundary"
    // Effect's parser reports a Content-Disposition that does not parse (an RFC 8187 `filename*` whose
    // escapes do not decode, say) as one without a name: both are a part's headers the form cannot use.
    case "BadHeaders":
    case "InvalidDisposition":
      return "the multipart body is not valid: a part's headers do not parse"
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
  Effect.callback((resume) =>
    wait((outcome) => resume(outcome._tag === "Done" ? Effect.succeed(outcome.value) : Effect.fail(outcome.refusal)))
  )

/** Reads the multipart body as it streams: fields in memory, the one file part into core's staging. */
const readUpload = (request: HttpServerRequest.HttpServerRequest, media: MediaService.MediaService["Service"]) =>
  Effect.suspend(() => {
    const form = UploadForm.readForm(incomingOf(request), request.headers, formRules)
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
      Effect.tapCause(() => (staged === undefined ? Effect.void : Effect.ignore(media.discard(staged.key))))
    )
  })

/** Handlers of the media endpoints. */
export const MediaHttpLive: Layer.Layer<
  HttpApiGroup.Service<"catalog-sync", "media">,
  never,
  MediaService.MediaService | IdempotencyStore.IdempotencyStore | Transactor.Transactor | Authentication
> = servicesAtBuild(
  HttpApiBuilder.group(Api, "media", (handlers) =>
    Effect.gen(function* () {
      const media = yield* MediaService.MediaService
      return (
        handlers
          // Raw: the handler streams the body itself. Its Idempotency-Key was decoded with the endpoint's
          // headers, before the body (a bad one is answered 422 idempotency_key_invalid by the envelope).
          .handleRaw("upload", ({ request, headers }) =>
            Effect.gen(function* () {
              // Checked before the body is read: a refused upload stages nothing.
              yield* api(media.authorize("media:write"))
              const { fields, staged } = yield* api(readUpload(request, media))
              const result = yield* writeEnvelope(
                headers["idempotency-key"],
                { ...fields, file_sha256: staged.sha256 },
                WriteCommand.map(media.uploadCommand(fields, staged), (job) => ({ job }))
              )
              return HttpServerResponse.jsonUnsafe(result, { status: 202 })
            })
          )
          .handle("list", ({ query }) =>
            Effect.gen(function* () {
              const page = yield* api(
                media.list({
                  limit: query.limit ?? Common.defaultLimit,
                  cursor: query.cursor,
                  external_id: query.external_id
                })
              )
              return { request_id: yield* requestId, ...page }
            })
          )
          .handle("get", ({ params }) =>
            Effect.gen(function* () {
              const record = yield* api(media.get(params.id))
              return { request_id: yield* requestId, record }
            })
          )
          .handle("content", ({ params, request }) =>
            Effect.gen(function* () {
              const found = yield* api(media.content(params.id))
              const cacheHeaders = { etag: found.etag, "cache-control": "private, max-age=31536000, immutable" }
              if (request.headers["if-none-match"] === found.etag) {
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
      )
    })
  )
)
