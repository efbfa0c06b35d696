import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand
} from "@aws-sdk/client-s3"
import { MediaErrors, MediaStorage } from "@catalog-sync/core"
import { Effect, Exit, Layer, Option, Redacted, Stream } from "effect"
import { createHash, randomUUID } from "node:crypto"
import type { Readable } from "node:stream"
import { storageError } from "./S3Errors.js"
import type { S3Settings } from "./S3Settings.js"

/** The folder under the prefix that holds uploads waiting for processing (never a storage_slug: those start with a letter or digit). */
export const stagingFolder = "_staging"

/** Multipart part size for staged uploads: S3's minimum for every part but the last. */
export const partSize = 5 * 1024 * 1024

/**
 * The S3 client for these settings. Checksums only where S3 requires them: the SDK's default trailing
 * checksums (aws-chunked bodies) are not understood by many S3-compatible services.
 */
export const makeClient = (settings: S3Settings) =>
  new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    ...(Option.isSome(settings.endpoint) ? { endpoint: settings.endpoint.value } : {}),
    ...(Option.isSome(settings.keys)
      ? {
          credentials: {
            accessKeyId: settings.keys.value.accessKeyId,
            secretAccessKey: Redacted.value(settings.keys.value.secretAccessKey),
            ...(Option.isSome(settings.keys.value.sessionToken)
              ? { sessionToken: Redacted.value(settings.keys.value.sessionToken.value) }
              : {})
          }
        }
      : {})
  })

// Folder and key names come from core (storage slugs, hex and uuid keys); anything else would leave the layout.
const segment = (name: string) =>
  /^[A-Za-z0-9._-]+$/.test(name) && name !== "." && name !== ".."
    ? Effect.succeed(name)
    : Effect.fail(
        new MediaErrors.MediaStorageError({
          reason: "unavailable",
          message: `"${name}" is not a valid media file name`
        })
      )

const contentType = (key: string) => (key.endsWith(".webp") ? "image/webp" : "application/octet-stream")

/** The S3 calls over one client, with every failure mapped to a MediaStorageError. */
const objects = (client: S3Client, settings: S3Settings) => {
  const Bucket = settings.bucket
  const send = <A>(what: string, call: (abortSignal: AbortSignal) => Promise<A>) =>
    Effect.tryPromise({ try: call, catch: (cause) => storageError(cause, what) })
  const keyOf = (folder: string, key: string) =>
    Effect.zipWith(segment(folder), segment(key), (f, k) => `${settings.prefix}${f}/${k}`)

  const head = (what: string, Key: string) =>
    send(what, (abortSignal) => client.send(new HeadObjectCommand({ Bucket, Key }), { abortSignal })).pipe(
      Effect.map((output) => Option.some(output.ContentLength ?? 0)),
      Effect.catchIf(
        (error) => error.reason === "not_found",
        () => Effect.succeed(Option.none<number>())
      )
    )

  /** The object's body, destroyed (its connection released) when the stream ends or is abandoned. */
  const body = (what: string, Key: string) =>
    Effect.acquireRelease(
      send(what, (abortSignal) => client.send(new GetObjectCommand({ Bucket, Key }), { abortSignal })),
      (output) => Effect.sync(() => (output.Body as Readable | undefined)?.destroy())
    ).pipe(Effect.map((output) => output.Body as unknown as (Readable & AsyncIterable<Uint8Array>) | undefined))

  const put = (what: string, Key: string, data: Uint8Array) =>
    send(what, (abortSignal) =>
      client.send(
        new PutObjectCommand({
          Bucket,
          Key,
          Body: data,
          ContentLength: data.byteLength,
          ContentType: contentType(Key)
        }),
        { abortSignal }
      )
    )

  // S3 answers 204 for a key that does not exist: removing twice is not an error.
  const remove = (what: string, Key: string) =>
    send(what, (abortSignal) => client.send(new DeleteObjectCommand({ Bucket, Key }), { abortSignal }))

  /** Every object under `Prefix`, page by page. */
  const list = (what: string, Prefix: string) =>
    Effect.gen(function* () {
      const found: Array<{ readonly key: string; readonly modifiedMillis: number }> = []
      let ContinuationToken: string | undefined
      do {
        const page = yield* send(what, (abortSignal) =>
          client.send(
            new ListObjectsV2Command({
              Bucket,
              Prefix,
              ...(ContinuationToken === undefined ? {} : { ContinuationToken })
            }),
            { abortSignal }
          )
        )
        for (const object of page.Contents ?? []) {
          if (object.Key !== undefined)
            found.push({ key: object.Key.slice(Prefix.length), modifiedMillis: object.LastModified?.getTime() ?? 0 })
        }
        ContinuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined
      } while (ContinuationToken !== undefined)
      return found
    })

  return { send, keyOf, head, body, put, remove, list }
}

/** MediaStorage over one bucket: objects `<prefix><folder>/<key>`, written whole by one PUT (atomic), read as a stream. */
export const make = (client: S3Client, settings: S3Settings) => {
  const s3 = objects(client, settings)
  return MediaStorage.MediaStorage.of({
    put: (folder, key, data) =>
      Effect.asVoid(Effect.flatMap(s3.keyOf(folder, key), (Key) => s3.put("cannot write the media file", Key, data))),
    exists: (folder, key) =>
      Effect.map(
        Effect.flatMap(s3.keyOf(folder, key), (Key) => s3.head("cannot read the media folder", Key)),
        Option.isSome
      ),
    size: (folder, key) =>
      Effect.map(
        Effect.flatMap(s3.keyOf(folder, key), (Key) => s3.head("cannot read the media folder", Key)),
        Option.getOrUndefined
      ),
    read: (folder, key) =>
      Stream.unwrap(
        Effect.gen(function* () {
          const body = yield* s3.body("cannot read the media file", yield* s3.keyOf(folder, key))
          return body === undefined
            ? Stream.empty
            : Stream.fromAsyncIterable(body, (cause) => storageError(cause, "cannot read the media file"))
        })
      ),
    remove: (folder, key) =>
      Effect.asVoid(Effect.flatMap(s3.keyOf(folder, key), (Key) => s3.remove("cannot remove the media file", Key)))
  })
}

/**
 * MediaStaging in the bucket (`<prefix>_staging/<key>`), shared by every instance: an upload received by
 * one is processed by whichever worker claims its job. An upload streams into one part buffer, hashed as it
 * passes; each full 5 MB part goes out as a part of a multipart upload, and an upload that never fills one
 * is a single PUT. So an upload holds at most one part in memory, and only a completed upload becomes an
 * object (a failed one is aborted).
 */
export const makeStaging = (client: S3Client, settings: S3Settings) => {
  const s3 = objects(client, settings)
  const Bucket = settings.bucket
  const Prefix = `${settings.prefix}${stagingFolder}/`
  const staged = (key: string) => s3.keyOf(stagingFolder, key)
  const what = "cannot write the staged file"
  return MediaStorage.MediaStaging.of({
    write: <E>(chunks: AsyncIterable<Uint8Array>, sourceFailed: (thrown: unknown) => E) =>
      Effect.gen(function* () {
        const key = `${randomUUID()}.upload`
        const Key = yield* staged(key)
        const hash = createHash("sha256")
        const head: Array<Uint8Array> = []
        let headLength = 0
        let bytes = 0
        // Not zero-filled: only the pages an upload actually fills are ever touched.
        const part = Buffer.allocUnsafe(partSize)
        let filled = 0
        let uploadId: string | undefined
        const parts: Array<{ readonly PartNumber: number; readonly ETag: string | undefined }> = []

        const sendPart = Effect.gen(function* () {
          if (uploadId === undefined) {
            const created = yield* s3.send(what, (abortSignal) =>
              client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: "application/octet-stream" }), {
                abortSignal
              })
            )
            uploadId = created.UploadId
          }
          const PartNumber = parts.length + 1
          const sent = yield* s3.send(what, (abortSignal) =>
            client.send(
              new UploadPartCommand({
                Bucket,
                Key,
                UploadId: uploadId,
                PartNumber,
                Body: part.subarray(0, filled),
                ContentLength: filled
              }),
              {
                abortSignal
              }
            )
          )
          parts.push({ PartNumber, ETag: sent.ETag })
          filled = 0
        })

        yield* Effect.gen(function* () {
          yield* Stream.runForEach(Stream.fromAsyncIterable(chunks, sourceFailed), (chunk) =>
            Effect.gen(function* () {
              hash.update(chunk)
              bytes += chunk.byteLength
              if (headLength < MediaStorage.headBytes) {
                const kept = Uint8Array.from(chunk.subarray(0, MediaStorage.headBytes - headLength))
                head.push(kept)
                headLength += kept.byteLength
              }
              let offset = 0
              while (offset < chunk.length) {
                const n = Math.min(partSize - filled, chunk.length - offset)
                part.set(chunk.subarray(offset, offset + n), filled)
                filled += n
                offset += n
                // The part buffer is reused once the part has been sent.
                if (filled === partSize) yield* sendPart
              }
            })
          )
          if (uploadId === undefined) return yield* s3.put(what, Key, part.subarray(0, filled))
          if (filled > 0) yield* sendPart
          const UploadId = uploadId
          yield* s3.send(what, (abortSignal) =>
            client.send(
              new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }),
              { abortSignal }
            )
          )
        }).pipe(
          // Failed or interrupted: no object was completed; a multipart upload begun is aborted with its parts.
          Effect.onExit((exit) => {
            const UploadId = uploadId
            return Exit.isSuccess(exit) || UploadId === undefined
              ? Effect.void
              : Effect.ignore(
                  s3.send(what, () => client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })))
                )
          })
        )
        return {
          key,
          bytes,
          sha256: hash.digest("hex"),
          head: Buffer.concat(head, headLength)
        } satisfies MediaStorage.StagedFile
      }),
    read: (key) =>
      Effect.scoped(
        Effect.gen(function* () {
          const body = yield* s3.body("cannot read the staged file", yield* staged(key))
          if (body === undefined) return new Uint8Array()
          return yield* s3.send("cannot read the staged file", async () => {
            const chunks: Array<Uint8Array> = []
            for await (const chunk of body) chunks.push(chunk)
            return new Uint8Array(Buffer.concat(chunks))
          })
        })
      ),
    remove: (key) =>
      Effect.asVoid(Effect.flatMap(staged(key), (Key) => s3.remove("cannot remove the staged file", Key))),
    list: Effect.map(s3.list("cannot list the staged files", Prefix), (files) =>
      files.filter((file) => !file.key.includes("/"))
    )
  })
}

/** Both media ports over one client, closed with the layer. */
export const layer = (settings: S3Settings): Layer.Layer<MediaStorage.MediaStorage | MediaStorage.MediaStaging> =>
  Layer.unwrap(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => makeClient(settings)),
        (client) => Effect.sync(() => client.destroy())
      ),
      (client) =>
        Layer.merge(
          Layer.succeed(MediaStorage.MediaStorage, make(client, settings)),
          Layer.succeed(MediaStorage.MediaStaging, makeStaging(client, settings))
        )
    )
  )

/**
 * Checks that the bucket is reachable with these credentials. The server logs the result at start and
 * starts either way: a wrong key must not take the catalog API down; media processing pauses instead.
 */
export const probe = (settings: S3Settings) =>
  Effect.acquireUseRelease(
    Effect.sync(() => makeClient(settings)),
    (client) =>
      Effect.tryPromise({
        try: (abortSignal) => client.send(new HeadBucketCommand({ Bucket: settings.bucket }), { abortSignal }),
        catch: (cause) => storageError(cause, `cannot reach the bucket ${settings.bucket}`)
      }),
    (client) => Effect.sync(() => client.destroy())
  ).pipe(Effect.asVoid)
