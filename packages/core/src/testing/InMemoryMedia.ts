import { Effect, Layer, Stream } from "effect"
import { MediaStorageError } from "../Media/MediaErrors.js"
import { MediaStorage } from "../Media/MediaStorage.js"

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
