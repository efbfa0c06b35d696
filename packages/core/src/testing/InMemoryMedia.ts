import { Clock, Effect, Layer, Stream } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { MediaStorageError } from "../Media/MediaErrors.js"
import { MediaStaging, MediaStorage, type StagedFile } from "../Media/MediaStorage.js"

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

export const storageLayer: Layer.Layer<MediaStorage> = Layer.effect(MediaStorage, makeStorage)

/** MediaStaging in memory, for tests: a failed stream stores nothing. */
export const makeStaging = Effect.sync(() => {
  const files = new Map<string, { readonly data: Uint8Array; readonly modifiedMillis: number }>()
  const missing = (key: string) => new MediaStorageError({ reason: "not_found", message: `no staged file ${key}` })
  return MediaStaging.of({
    write: <E>(content: Stream.Stream<Uint8Array, E>) =>
      Effect.gen(function* () {
        const hash = createHash("sha256")
        const chunks: Array<Uint8Array> = []
        yield* Stream.runForEach(content, (chunk) =>
          Effect.sync(() => {
            hash.update(chunk)
            chunks.push(Uint8Array.from(chunk))
          })
        )
        const data = Buffer.concat(chunks)
        const key = `${randomUUID()}.upload`
        files.set(key, { data: new Uint8Array(data), modifiedMillis: yield* Clock.currentTimeMillis })
        return { key, bytes: data.byteLength, sha256: hash.digest("hex"), head: Uint8Array.from(data.subarray(0, 64)) } satisfies StagedFile
      }),
    read: (key) => Effect.suspend(() => {
      const file = files.get(key)
      return file === undefined ? Effect.fail(missing(key)) : Effect.succeed(Uint8Array.from(file.data))
    }),
    remove: (key) => Effect.sync(() => void files.delete(key)),
    list: Effect.sync(() => Array.from(files, ([key, file]) => ({ key, modifiedMillis: file.modifiedMillis })))
  })
})

export const stagingLayer: Layer.Layer<MediaStaging> = Layer.effect(MediaStaging, makeStaging)
