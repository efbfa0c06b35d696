/**
 * Faults injected around the server's real media ports, for end-to-end tests: folders whose writes the
 * storage refuses as the file system would (`denied`), sources (by SHA-256) whose processing never ends
 * (`stalled`), dies (`crashing`) or waits for a gate the test opens (`gates`), and a record of every
 * source processed and file written.
 */
import { ImageProcessor, MediaErrors, MediaStorage } from "@catalog-sync/core"
import { Context, Deferred, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import type { MediaPorts } from "../src/Server.js"

export const sha = (data: Uint8Array) => createHash("sha256").update(data).digest("hex")

export const makeMediaFaults = () => {
  const denied = new Set<string>()
  const stalled = new Set<string>()
  const crashing = new Set<string>()
  const gates = new Map<string, Deferred.Deferred<void>>()
  const processed: Array<string> = []
  const written: Array<string> = []

  const layer = (defaults: Layer.Layer<MediaPorts>): Layer.Layer<MediaPorts> =>
    Layer.effectContext(
      Effect.gen(function* () {
        const storage = yield* MediaStorage.MediaStorage
        const images = yield* ImageProcessor.ImageProcessor
        const staging = yield* MediaStorage.MediaStaging
        return Context.make(
          MediaStorage.MediaStorage,
          MediaStorage.MediaStorage.of({
            ...storage,
            put: (folder, key, data) =>
              denied.has(folder)
                ? Effect.fail(
                    new MediaErrors.MediaStorageError({
                      reason: "denied",
                      message: "cannot write the media file: EACCES"
                    })
                  )
                : Effect.andThen(
                    Effect.sync(() => void written.push(`${folder}/${key}`)),
                    storage.put(folder, key, data)
                  )
          })
        ).pipe(
          Context.add(ImageProcessor.ImageProcessor, {
            ...images,
            process: (source, options) =>
              Effect.suspend(() => {
                const hash = sha(source)
                processed.push(hash)
                if (stalled.has(hash)) return Effect.never
                if (crashing.has(hash)) return Effect.die(new Error("decoder crashed"))
                const gate = gates.get(hash)
                return gate === undefined
                  ? images.process(source, options)
                  : Effect.andThen(Deferred.await(gate), images.process(source, options))
              })
          }),
          Context.add(MediaStorage.MediaStaging, staging)
        )
      })
    ).pipe(Layer.provide(defaults))

  /** Holds the processing of `source` until the returned effect runs. */
  const gate = (source: Uint8Array) =>
    Effect.map(Deferred.make<void>(), (deferred) => {
      gates.set(sha(source), deferred)
      return Deferred.succeed(deferred, undefined)
    })

  return { layer, denied, stalled, crashing, gate, processed, written }
}
