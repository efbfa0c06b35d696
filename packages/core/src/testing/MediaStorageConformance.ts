import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, type Layer, Stream } from "effect"
import { createHash } from "node:crypto"
import { headBytes, MediaStaging, MediaStorage } from "../Media/MediaStorage.js"

/**
 * A staging write's arguments from an Effect stream: its chunks as an async iterable, and its failure as
 * it was (the iterable throws a failed stream's error itself).
 */
export const chunksOf = <E>(stream: Stream.Stream<Uint8Array, E>) =>
  [Stream.toAsyncIterable(stream), (thrown: unknown) => thrown as E] as const

const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * seed) % 251)
const readAll = (stream: Stream.Stream<Uint8Array, unknown>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat(chunks))

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
      }).pipe(Effect.provide(layer))
    )

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
      }).pipe(Effect.provide(layer))
    )

    it.effect("reading a missing file fails with reason not_found", () =>
      Effect.gen(function* () {
        const storage = yield* MediaStorage
        const error = yield* Effect.flip(readAll(storage.read("none", "missing.webp")))
        expect(error).toMatchObject({ _tag: "MediaStorageError", reason: "not_found" })
      }).pipe(Effect.provide(layer))
    )
  })

/** The MediaStaging contract, for every implementation. Runs on the real clock (files carry write times). */
export const runMediaStagingConformance = (name: string, layer: Layer.Layer<MediaStaging, unknown>) =>
  describe(`MediaStaging conformance: ${name}`, () => {
    it.live("write streams the chunks into one file, hashing and keeping the head; read, list and remove agree", () =>
      Effect.gen(function* () {
        const staging = yield* MediaStaging
        // Longer than the kept head, which spans several chunks.
        const data = bytes(headBytes + 50_000, 11)
        const chunks = [data.subarray(0, 1), data.subarray(1, 40), data.subarray(40, 70_000), data.subarray(70_000)]
        const before = Date.now()
        const staged = yield* staging.write(...chunksOf(Stream.fromIterable(chunks)))
        const after = Date.now()
        expect(staged.bytes).toBe(data.byteLength)
        expect(staged.sha256).toBe(createHash("sha256").update(data).digest("hex"))
        expect(Buffer.compare(Buffer.from(staged.head), Buffer.from(data.subarray(0, headBytes)))).toBe(0)
        expect(Buffer.compare(Buffer.from(yield* staging.read(staged.key)), Buffer.from(data))).toBe(0)
        const listed = (yield* staging.list).filter((file) => file.key === staged.key)
        expect(listed).toHaveLength(1)
        // Object stores keep write times to the second.
        expect(listed[0]!.modifiedMillis).toBeGreaterThanOrEqual(before - 2_000)
        expect(listed[0]!.modifiedMillis).toBeLessThanOrEqual(after + 2_000)
        const other = yield* staging.write(...chunksOf(Stream.make(Uint8Array.from([1, 2, 3]))))
        expect(other.key).not.toBe(staged.key)
        expect(Array.from(other.head)).toEqual([1, 2, 3])
        yield* staging.remove(staged.key)
        yield* staging.remove(staged.key)
        expect((yield* staging.list).map((file) => file.key)).toEqual([other.key])
        expect(yield* Effect.flip(staging.read(staged.key))).toMatchObject({
          _tag: "MediaStorageError",
          reason: "not_found"
        })
      }).pipe(Effect.provide(layer))
    )

    it.live("an empty upload is a file of 0 bytes", () =>
      Effect.gen(function* () {
        const staging = yield* MediaStaging
        const staged = yield* staging.write(...chunksOf(Stream.empty))
        expect({ bytes: staged.bytes, head: staged.head.byteLength }).toEqual({ bytes: 0, head: 0 })
        expect(staged.sha256).toBe(createHash("sha256").digest("hex"))
        expect((yield* staging.read(staged.key)).byteLength).toBe(0)
      }).pipe(Effect.provide(layer))
    )

    it.live("an interrupted write ends at once, while its chunks wait, and leaves no file", () =>
      Effect.gen(function* () {
        const staging = yield* MediaStaging
        let returned = false
        // One chunk, then nothing more: a client that stalls. Its `return` is how a consumer lets go.
        const stalled: AsyncIterable<Uint8Array> = {
          [Symbol.asyncIterator]: () => {
            let sent = false
            return {
              next: () =>
                sent
                  ? new Promise(() => {})
                  : ((sent = true), Promise.resolve({ done: false, value: bytes(100_000, 3) })),
              return: () => {
                returned = true
                return Promise.resolve({ done: true, value: undefined })
              }
            }
          }
        }
        const writing = yield* Effect.forkChild(staging.write(stalled, (thrown) => thrown))
        yield* Effect.sleep("100 millis")
        yield* Fiber.interrupt(writing).pipe(
          Effect.timeoutOrElse({
            duration: "2 seconds",
            orElse: () => Effect.fail("the interrupted write did not end")
          })
        )
        expect(returned).toBe(true)
        expect(yield* staging.list).toEqual([])
      }).pipe(Effect.provide(layer))
    )

    it.live("a stream that fails fails the write with its error and leaves no file", () =>
      Effect.gen(function* () {
        const staging = yield* MediaStaging
        const failing = Stream.concat(
          Stream.make(bytes(100_000, 3), bytes(50_000, 5)),
          Stream.fail("client went away" as const)
        )
        expect(yield* Effect.flip(staging.write(...chunksOf(failing)))).toBe("client went away")
        expect(yield* staging.list).toEqual([])
      }).pipe(Effect.provide(layer))
    )
  })
