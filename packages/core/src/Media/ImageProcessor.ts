import { Context, type Effect } from "effect"
import type { ImageFormat } from "./Media.js"
import type { ImageRejected } from "./MediaErrors.js"

/** What the header of an image says, read without decoding its pixels. */
export interface ImageInfo {
  readonly format: ImageFormat
  /** As displayed: a JPEG whose EXIF orientation turns it has width and height swapped. */
  readonly width: number
  readonly height: number
}

/** A processed image. */
export interface ProcessedImage {
  readonly data: Uint8Array
  readonly width: number
  readonly height: number
}

/** Image decoding and encoding. */
export class ImageProcessor extends Context.Service<
  ImageProcessor,
  {
    /** Reads the header only; fails `corrupt` when it cannot be read. */
    readonly inspect: (source: Uint8Array) => Effect.Effect<ImageInfo, ImageRejected>
    /**
     * Turns the image upright by its EXIF orientation, keeps transparency, shrinks it so that its long
     * edge is at most `maxLongEdge` (never enlarges) and encodes WebP. Refuses more than `maxPixels`.
     */
    readonly process: (
      source: Uint8Array,
      options: { readonly maxLongEdge: number; readonly maxPixels: number }
    ) => Effect.Effect<ProcessedImage, ImageRejected>
  }
>()("@catalog-sync/core/ImageProcessor") {}
