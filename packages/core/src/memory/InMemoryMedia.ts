import { Clock, Effect, Exit, Layer, Option, Stream } from "effect"
import type { ImageInfo } from "../Media/ImageProcessor.js"
import { ImageProcessor } from "../Media/ImageProcessor.js"
import { type ImageFormat, sniffFormat, type StoredMedia } from "../Media/Media.js"
import { ImageRejected, MediaStorageError } from "../Media/MediaErrors.js"
import { MediaRepository } from "../Media/MediaRepository.js"
import { headBytes, MediaStaging, MediaStorage } from "../Media/MediaStorage.js"

/** MediaStorage in memory, for tests. */
export const makeStorage = Effect.sync(() => {
  const files = new Map<string, Uint8Array>()
  const path = (folder: string, key: string) => `${folder}/${key}`
  return MediaStorage.of({
    put: (folder, key, data) => Effect.sync(() => void files.set(path(folder, key), Uint8Array.from(data))),
    exists: (folder, key) => Effect.sync(() => files.has(path(folder, key))),
    read: (folder, key) =>
      Stream.unwrap(
        Effect.sync(() => {
          const data = files.get(path(folder, key))
          return data === undefined
            ? Stream.fail(new MediaStorageError({ reason: "not_found", message: `no file ${key}` }))
            : Stream.make(Uint8Array.from(data))
        })
      ),
    size: (folder, key) => Effect.sync(() => files.get(path(folder, key))?.byteLength),
    remove: (folder, key) => Effect.sync(() => void files.delete(path(folder, key)))
  })
})

/** `MediaStorage` in memory. */
export const storageLayer: Layer.Layer<MediaStorage> = Layer.effect(MediaStorage, makeStorage)

/**
 * MediaRepository in memory. Like the in-memory job store, its state is not part of the in-memory
 * Transactor's snapshot; MediaService writes it last in each transaction.
 */
export const makeRepository = Effect.sync(() => {
  const items = new Map<string, StoredMedia>()
  const byId = (a: StoredMedia, b: StoredMedia) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  return MediaRepository.of({
    insert: (media) =>
      Effect.sync(() => {
        if (items.has(media.id)) throw new Error(`duplicate media ${media.id}`)
        items.set(media.id, media)
      }),
    update: (media) =>
      Effect.sync(() => {
        const current = items.get(media.id)
        if (current !== undefined && current.companyId === media.companyId) items.set(media.id, media)
      }),
    get: (companyId, id) =>
      Effect.sync(() => Option.fromNullishOr(items.get(id)).pipe(Option.filter((m) => m.companyId === companyId))),
    byJob: (jobId) =>
      Effect.sync(() => Option.fromNullishOr(Array.from(items.values()).find((m) => m.jobId === jobId))),
    completedWithContent: (companyId, contentKey) =>
      Effect.sync(() =>
        Option.fromNullishOr(
          Array.from(items.values())
            .filter((m) => m.companyId === companyId && m.contentKey === contentKey && m.state === "completed")
            .sort(byId)[0]
        )
      ),
    list: (query) =>
      Effect.sync(() =>
        Array.from(items.values())
          .filter(
            (m) =>
              m.companyId === query.companyId &&
              (query.cursor === undefined || m.id > query.cursor) &&
              (query.ids === undefined || query.ids.includes(m.id))
          )
          .sort(byId)
          .slice(0, query.limit)
      ),
    stagedBytes: (companyId, connectionId) =>
      Effect.sync(() =>
        Array.from(items.values())
          .filter((m) => m.companyId === companyId && m.connectionId === connectionId && m.stagedKey !== null)
          .reduce((sum, m) => sum + m.sourceBytes, 0)
      ),
    referencedStagedKeys: Effect.sync(
      () => new Set(Array.from(items.values()).flatMap((m) => (m.stagedKey === null ? [] : [m.stagedKey])))
    ),
    staged: Effect.sync(() =>
      Array.from(items.values())
        .filter((m) => m.stagedKey !== null)
        .sort(byId)
    )
  })
})

/** `MediaRepository` in memory. */
export const repositoryLayer: Layer.Layer<MediaRepository> = Layer.effect(MediaRepository, makeRepository)

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("")

/**
 * MediaStaging in memory. `files` exposes what is staged and `plant` adds a file with a chosen time,
 * so tests can see that refusals leave nothing behind and can stage a crash's leftovers.
 */
export const makeStaging = Effect.sync(() => {
  const files = new Map<string, { readonly data: Uint8Array; readonly modifiedMillis: number }>()
  let counter = 0
  const staging = MediaStaging.of({
    write: <E>(chunks: AsyncIterable<Uint8Array>, sourceFailed: (thrown: unknown) => E) =>
      Effect.gen(function* () {
        const key = `staged-${++counter}.upload`
        const received: Array<Uint8Array> = []
        // Like the file adapter: what was written so far is visible (and counts) while the upload streams.
        files.set(key, { data: new Uint8Array(), modifiedMillis: yield* Clock.currentTimeMillis })
        yield* Stream.runForEach(Stream.fromAsyncIterable(chunks, sourceFailed), (chunk) =>
          Effect.sync(() => void received.push(chunk))
        ).pipe(Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => files.delete(key)))))
        const data = new Uint8Array(received.reduce((n, c) => n + c.byteLength, 0))
        received.reduce((at, c) => (data.set(c, at), at + c.byteLength), 0)
        files.set(key, { data, modifiedMillis: yield* Clock.currentTimeMillis })
        const sha256 = hex(yield* Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", data)))
        return { key, bytes: data.byteLength, sha256, head: data.slice(0, headBytes) }
      }),
    read: (key) =>
      Effect.suspend(() => {
        const file = files.get(key)
        return file === undefined
          ? Effect.fail(new MediaStorageError({ reason: "not_found", message: `no staged file ${key}` }))
          : Effect.succeed(Uint8Array.from(file.data))
      }),
    remove: (key) => Effect.sync(() => void files.delete(key)),
    list: Effect.sync(() => Array.from(files, ([key, file]) => ({ key, modifiedMillis: file.modifiedMillis })))
  })
  const plant = (key: string, data: Uint8Array, modifiedMillis: number) => void files.set(key, { data, modifiedMillis })
  return { staging, files: () => Array.from(files.keys()), plant } as const
})

/** `MediaStaging` in memory. */
export const stagingLayer: Layer.Layer<MediaStaging> = Layer.effect(
  MediaStaging,
  Effect.map(makeStaging, (made) => made.staging)
)

/**
 * A tiny image format for tests without an image library: the format's magic bytes (JPEG FF D8 FF,
 * the PNG signature, or RIFF....WEBP), then `FAKE`, width and height (4 bytes each, big-endian), one
 * flag byte (1: EXIF-style turned by 90 degrees, so displayed width and height swap), then any bytes.
 * Bytes containing `BROKEN` have a readable header but cannot be decoded.
 */
export const fakeImage = (options: {
  readonly format?: ImageFormat
  readonly width: number
  readonly height: number
  readonly turned?: boolean
  readonly payload?: string | Uint8Array
}): Uint8Array => {
  const magic: Record<ImageFormat, ReadonlyArray<number>> = {
    jpeg: [0xff, 0xd8, 0xff],
    png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    webp: [...ascii("RIFF"), 0, 0, 0, 0, ...ascii("WEBP")]
  }
  const header = [
    ...magic[options.format ?? "png"],
    ...ascii("FAKE"),
    ...u32(options.width),
    ...u32(options.height),
    options.turned === true ? 1 : 0
  ]
  const payload = typeof options.payload === "string" ? ascii(options.payload) : Array.from(options.payload ?? [])
  return Uint8Array.from([...header, ...payload])
}

const ascii = (text: string) => Array.from(text, (c) => c.charCodeAt(0))
const u32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]
const readU32 = (bytes: Uint8Array, at: number) =>
  ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0
const magicLength: Record<ImageFormat, number> = { jpeg: 3, png: 8, webp: 12 }
const contains = (bytes: Uint8Array, text: string) => new TextDecoder("latin1").decode(bytes).includes(text)

const readFake = (source: Uint8Array): (ImageInfo & { readonly turned: boolean }) | undefined => {
  const format = sniffFormat(source)
  if (format === undefined) return undefined
  const at = magicLength[format]
  if (source.length < at + 13 || String.fromCharCode(...source.slice(at, at + 4)) !== "FAKE") return undefined
  const width = readU32(source, at + 4)
  const height = readU32(source, at + 8)
  const turned = source[at + 12] === 1
  return { format, width: turned ? height : width, height: turned ? width : height, turned }
}

const corrupt = new ImageRejected({ reason: "corrupt", message: "the image cannot be read" })

/**
 * An ImageProcessor over `fakeImage` bytes, deterministic: the output is a fake WebP of the upright
 * size shrunk to the long edge (never enlarged), followed by the source's bytes, so that equal sources
 * give equal outputs.
 */
export const imageProcessor = ImageProcessor.of({
  inspect: (source) =>
    Effect.suspend(() => {
      const info = readFake(source)
      return info === undefined
        ? Effect.fail(corrupt)
        : Effect.succeed({ format: info.format, width: info.width, height: info.height })
    }),
  process: (source, options) =>
    Effect.suspend(() => {
      const info = readFake(source)
      if (info === undefined || contains(source, "BROKEN")) return Effect.fail(corrupt)
      if (info.width * info.height > options.maxPixels) {
        return Effect.fail(
          new ImageRejected({
            reason: "too_many_pixels",
            message: `${info.width}x${info.height} is over ${options.maxPixels} pixels`
          })
        )
      }
      const scale = Math.min(1, options.maxLongEdge / Math.max(info.width, info.height))
      const width = Math.max(1, Math.round(info.width * scale))
      const height = Math.max(1, Math.round(info.height * scale))
      const data = Uint8Array.from([...fakeImage({ format: "webp", width, height }), ...source])
      return Effect.succeed({ data, width, height })
    })
})

/** An `ImageProcessor` that reads headers but does not convert images, for tests without sharp. */
export const imageProcessorLayer: Layer.Layer<ImageProcessor> = Layer.succeed(ImageProcessor, imageProcessor)
