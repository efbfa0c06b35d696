import { ImageProcessor, MediaErrors } from "@catalog-sync/core"
import { Effect, Layer } from "effect"
import sharp from "sharp"

const corrupt = (cause: unknown) =>
  new MediaErrors.ImageRejected({
    reason: "corrupt",
    message: `the image cannot be read: ${cause instanceof Error ? cause.message : String(cause)}`
  })

const formats = { jpeg: "jpeg", png: "png", webp: "webp" } as const

/** EXIF orientations 5-8 turn the image by 90 degrees: displayed width and height swap. */
const turned = (orientation: number | undefined) => orientation !== undefined && orientation >= 5

/**
 * The libvips loaders of the accepted formats (spec 2.13). Every other loader (GIF, TIFF, SVG, PDF,
 * HEIF, ...) is blocked for the whole process: uploads are sniffed by their magic bytes before they
 * reach libvips, and this is the second guard should a file ever pass that check, since those loaders
 * are where decoder vulnerabilities have been found.
 */
export const acceptedLoaders = ["VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp"] as const

/** Blocks every libvips loader but the accepted ones (idempotent; process-wide, as libvips is). */
export const blockUnacceptedDecoders = () => {
  sharp.block({ operation: ["VipsForeignLoad"] })
  sharp.unblock({ operation: [...acceptedLoaders] })
}

/**
 * Keeps libvips from holding memory between jobs (process-wide, as libvips is): no operation cache (by
 * default up to 50 MB, 20 files and 100 operations, which kept a worker's RSS hundreds of MB up after a
 * few 40 MP images), and one libvips thread per image, since media jobs run one at a time: each thread
 * keeps its own malloc arena, and an image decoded on several leaves its memory in several.
 */
export const boundMemory = () => {
  sharp.cache(false)
  sharp.concurrency(1)
}

/** ImageProcessor with sharp (libvips); building the layer blocks the loaders of unaccepted formats. */
export const make = ImageProcessor.ImageProcessor.of({
  inspect: (source) =>
    Effect.tryPromise({ try: () => sharp(source, { limitInputPixels: false }).metadata(), catch: corrupt }).pipe(
      Effect.flatMap((meta) => {
        const format = formats[meta.format as keyof typeof formats]
        if (format === undefined || meta.width === undefined || meta.height === undefined) {
          return Effect.fail(corrupt(new Error(`unexpected format ${String(meta.format)}`)))
        }
        const swap = turned(meta.orientation)
        return Effect.succeed({
          format,
          width: swap ? meta.height : meta.width,
          height: swap ? meta.width : meta.height
        })
      })
    ),
  process: (source, options) =>
    Effect.tryPromise({
      try: async () => {
        const { data, info } = await sharp(source, { limitInputPixels: options.maxPixels, failOn: "error" })
          .rotate()
          .resize({ width: options.maxLongEdge, height: options.maxLongEdge, fit: "inside", withoutEnlargement: true })
          .webp({ quality: 82, alphaQuality: 100 })
          .toBuffer({ resolveWithObject: true })
        return {
          data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
          width: info.width,
          height: info.height
        }
      },
      catch: corrupt
    })
})

/** The `ImageProcessor` layer; building it blocks libvips' loaders of unaccepted formats and bounds its memory. */
export const layer: Layer.Layer<ImageProcessor.ImageProcessor> = Layer.sync(ImageProcessor.ImageProcessor, () => {
  blockUnacceptedDecoders()
  boundMemory()
  return make
})
