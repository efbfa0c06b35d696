import { describe, expect, it } from "@effect/vitest"
import { ImageProcessor } from "@catalog-sync/core"
import { Effect, Layer } from "effect"
import sharp from "sharp"
import { layer } from "../src/SharpImageProcessor.js"

const encoded = (format: "jpeg" | "png" | "webp" | "gif" | "tiff" | "avif") =>
  Effect.promise(() =>
    sharp({ create: { width: 16, height: 12, channels: 3, background: { r: 200, g: 40, b: 10 } } })
      [format]()
      .toBuffer()
  ).pipe(Effect.map((buffer) => new Uint8Array(buffer)))

describe("SharpImageProcessor", () => {
  it("runs a sharp release outside the range of GHSA-f88m-g3jw-g9cj (libvips GIF/TIFF loaders)", () => {
    const [major, minor] = sharp.versions.sharp.split(".").map(Number)
    expect(major! > 0 || minor! >= 35).toBe(true)
  })

  it.effect("building the layer turns libvips' operation cache off and runs one thread per image", () =>
    Effect.gen(function* () {
      // sharp's defaults (its concurrency is the number of cores unless glibc without jemalloc is seen).
      sharp.cache({ memory: 50, files: 20, items: 100 })
      sharp.concurrency(4)
      yield* Effect.scoped(Layer.build(layer))
      expect(sharp.cache()).toMatchObject({ memory: { max: 0 }, files: { max: 0 }, items: { max: 0 } })
      expect(sharp.concurrency()).toBe(1)
    })
  )

  it.effect(
    "decodes the accepted formats and refuses every other one as image_corrupt, even past the magic-byte check",
    () =>
      Effect.gen(function* () {
        const processor = yield* ImageProcessor.ImageProcessor
        for (const format of ["jpeg", "png", "webp"] as const) {
          const source = yield* encoded(format)
          expect(yield* processor.inspect(source)).toEqual({ format, width: 16, height: 12 })
          const out = yield* processor.process(source, { maxLongEdge: 8, maxPixels: 40_000_000 })
          expect({ width: out.width, height: out.height }).toEqual({ width: 8, height: 6 })
        }
        for (const format of ["gif", "tiff", "avif"] as const) {
          const source = yield* encoded(format)
          const inspected = yield* Effect.flip(processor.inspect(source))
          expect(inspected).toMatchObject({ _tag: "ImageRejected", reason: "corrupt" })
          const processed = yield* Effect.flip(processor.process(source, { maxLongEdge: 8, maxPixels: 40_000_000 }))
          expect(processed).toMatchObject({ _tag: "ImageRejected", reason: "corrupt" })
        }
      }).pipe(Effect.provide(layer))
  )
})
