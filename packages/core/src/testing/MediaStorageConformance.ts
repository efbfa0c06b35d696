import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, type Layer, Stream } from "effect"
import { MediaStorage } from "../Media/MediaStorage.js"

const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * seed) % 251)
const readAll = (stream: Stream.Stream<Uint8Array, unknown>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat(Chunk.toReadonlyArray(chunks)))

/** The MediaStorage contract, for every implementation. */
export const runMediaStorageConformance = (name: string, layer: Layer.Layer<MediaStorage, unknown>) =>
  describe(`MediaStorage conformance: ${name}`, () => {
    it.effect("put then read streams the same bytes; size and exists agree", () =>
      Effect.gen(function* () {
        const storage = yield* MediaStorage
        const data = bytes(300_000, 7)
        expect(yield* storage.exists("acme", "a.webp")).toBe(false)
        expect(yield* storage.size("acme", "a.webp")).toBeUndefined()
        yield* storage.put("acme", "a.webp", data)
        expect(yield* storage.exists("acme", "a.webp")).toBe(true)
        expect(yield* storage.size("acme", "a.webp")).toBe(data.byteLength)
        expect(Buffer.compare(yield* readAll(storage.read("acme", "a.webp")), Buffer.from(data))).toBe(0)
      }).pipe(Effect.provide(layer)))

    it.effect("folders are separate; a put replaces the whole file; remove is idempotent", () =>
      Effect.gen(function* () {
        const storage = yield* MediaStorage
        yield* storage.put("one", "x.webp", bytes(10, 3))
        expect(yield* storage.exists("two", "x.webp")).toBe(false)
        yield* storage.put("one", "x.webp", bytes(4, 5))
        expect((yield* readAll(storage.read("one", "x.webp"))).byteLength).toBe(4)
        yield* storage.remove("one", "x.webp")
        yield* storage.remove("one", "x.webp")
        expect(yield* storage.exists("one", "x.webp")).toBe(false)
      }).pipe(Effect.provide(layer)))

    it.effect("reading a missing file fails with reason not_found", () =>
      Effect.gen(function* () {
        const storage = yield* MediaStorage
        const error = yield* Effect.flip(readAll(storage.read("none", "missing.webp")))
        expect(error).toMatchObject({ _tag: "MediaStorageError", reason: "not_found" })
      }).pipe(Effect.provide(layer)))
  })
